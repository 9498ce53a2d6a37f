extension ImageProcessors {
    /// Which part of an image a crop keeps. The raw value is the identifier's spelling.
    public enum Anchor: String, Sendable, CaseIterable {
        /// The middle (when the excess is odd, the extra pixel is cut on the right or bottom).
        case center = "centre"
        /// The top edge, centred horizontally.
        case top
        /// The bottom edge, centred horizontally.
        case bottom
        /// The left edge, centred vertically.
        case left
        /// The right edge, centred vertically.
        case right
        /// The top-left corner.
        case topLeft = "top-left"
        /// The top-right corner.
        case topRight = "top-right"
        /// The bottom-left corner.
        case bottomLeft = "bottom-left"
        /// The bottom-right corner.
        case bottomRight = "bottom-right"

        /// Where a `width` x `height` window starts inside `fullWidth` x `fullHeight` (both at least as large).
        func origin(width: Int, height: Int, fullWidth: Int, fullHeight: Int) -> (x: Int, y: Int) {
            let spareX = fullWidth - width, spareY = fullHeight - height
            let x: Int, y: Int
            switch self {
            case .left, .topLeft, .bottomLeft: x = 0
            case .right, .topRight, .bottomRight: x = spareX
            case .center, .top, .bottom: x = spareX / 2
            }
            switch self {
            case .top, .topLeft, .topRight: y = 0
            case .bottom, .bottomLeft, .bottomRight: y = spareY
            case .center, .left, .right: y = spareY / 2
            }
            return (x, y)
        }
    }
}
