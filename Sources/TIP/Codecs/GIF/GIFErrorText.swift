import CGIF

/// giflib's text for an error code.
func gifErrorText(_ code: Int32) -> String {
    guard let text = GifErrorString(code) else { return "giflib error \(code)" }
    return String(cString: text)
}
