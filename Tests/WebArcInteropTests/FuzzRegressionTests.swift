import Foundation
import Testing
import WebArc
import WebArcTestSupport

@testable import WebArcInterop

/// Inputs the fuzz targets of `Tools/fuzz` found crashing the importers; each is also kept in
/// `Tools/fuzz/FailCases/<target>/`.
@Suite("fuzz regressions: importers")
struct FuzzRegressionTests {
    static let failCases = repositoryRoot.appendingPathComponent("Tools/fuzz/FailCases").path

    /// `bplist00`, a set (`0xC1`) whose one member is an empty dictionary, then the offset table
    /// and trailer: corelibs-foundation's parser dereferences null bridging the set.
    static let setOfDictionary: [UInt8] =
        Array("bplist00".utf8) + [0xC1, 0x01, 0xD0, 0x08, 0x0A]
        + [0, 0, 0, 0, 0, 0, 1, 1] + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 0] + [0, 0, 0, 0, 0, 0, 0, 11]

    @Test(
        "a binary property list holding a set is refused as bad-property-list, not handed to Foundation (FuzzWebArchive)"
    )
    func binaryPropertyListWithSet() throws {
        let folder = try TemporaryFolder()
        let crafted = folder.file("set.webarchive")
        try Data(Self.setOfDictionary).write(to: URL(fileURLWithPath: crafted))
        let found = Self.failCases + "/FuzzWebArchive/crash-ac748c0b3f7810bbac56404d7e7111b567d44d8e"
        for input in [crafted, found] {
            #expect(
                throws: InteropError.badPropertyList(
                    at: InputLocation(file: input), reason: "the property list does not parse")
            ) {
                try importFiles([input], in: folder)
            }
        }
        #expect(KeyedArchive(data: Data(Self.setOfDictionary)) == nil)
    }

    @Test("the set check reads only what the trailer and offset table bound")
    func setCheckBounds() {
        #expect(PropertyListReading.holdsSetOrIsMalformed(Self.setOfDictionary))
        #expect(!PropertyListReading.holdsSetOrIsMalformed(Array("<?xml version=\"1.0\"?><plist/>".utf8)))
        #expect(PropertyListReading.holdsSetOrIsMalformed(Array("bplist00".utf8) + [0xD0]))
        var lying = Self.setOfDictionary
        lying[lying.count - 1] = 0xFF  // offset table past the end
        #expect(PropertyListReading.holdsSetOrIsMalformed(lying))
        var many = Self.setOfDictionary
        many[many.count - 17] = 0xFF  // 2^8 + … objects in a 2-byte table
        #expect(PropertyListReading.holdsSetOrIsMalformed(many))
        var dictionary = Self.setOfDictionary
        dictionary[8] = 0xD0  // the top object an empty dictionary: no set
        #expect(!PropertyListReading.holdsSetOrIsMalformed(dictionary))
    }
}
