import CLZ4
import CZstd
import Testing

/// The compressors are the package's own (Sources/CLZ4, Sources/CZstd), so that every webarc build
/// codes alike and `apply` writes the publisher's archive again whatever the system's libraries.
/// Another version codes differently: changing one breaks updates between builds before and after.
@Suite("Vendored compressors")
struct VendoredCompressorTests {
    @Test("liblz4 is the vendored 1.9.4 and libzstd the vendored 1.5.4, not the system's")
    func versions() {
        #expect(LZ4_versionNumber() == 10_904)
        #expect(ZSTD_versionNumber() == 10_504)
    }
}
