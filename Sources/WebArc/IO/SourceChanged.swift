/// An error of a ``ByteSource`` whose file can be replaced while it is read (a remote archive a
/// publisher replaces at its URL): ``sourceChanged`` says the bytes at the source are no longer
/// the version this reader opened.
///
/// No read through that reader can succeed again, and none may be answered from the new bytes
/// (they would be mixed with the old version's pages): the archive must be opened anew. Front ends
/// that keep archives open (`webarc serve`, the URL protocol) do so on such an error. Other
/// failures of a conforming type (a timeout) say false.
public protocol SourceChanged: Error {
    /// True when the bytes at the source are another version than the one the reader opened.
    var sourceChanged: Bool { get }
}
