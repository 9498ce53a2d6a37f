import Testing
import TIPImageServer

@Suite("Image server")
struct TIPImageServerTests {
    @Test("A server can be made")
    func make() {
        _ = TIPImageServer()
    }
}
