/// A point on a page, in points (1/72 inch), measured from the page's top-left corner, y downwards.
public struct PDFPoint: Sendable, Equatable {
    /// From the left edge.
    public var x: Double
    /// From the top edge.
    public var y: Double

    /// A point `x` from the left edge and `y` from the top edge.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }
}

/// A rectangle on a page: its top-left corner and size, in points.
public struct PDFRect: Sendable, Equatable {
    /// From the left edge to the rectangle's left side.
    public var x: Double
    /// From the top edge to the rectangle's top side.
    public var y: Double
    /// Its width.
    public var width: Double
    /// Its height.
    public var height: Double

    /// A rectangle whose top-left corner is (`x`, `y`).
    public init(x: Double, y: Double, width: Double, height: Double) {
        self.x = x
        self.y = y
        self.width = width
        self.height = height
    }

    /// The right side's x.
    public var maxX: Double { x + width }
    /// The bottom side's y.
    public var maxY: Double { y + height }
}

/// A page size in points.
public struct PDFPageSize: Sendable, Equatable {
    /// The width.
    public var width: Double
    /// The height.
    public var height: Double

    /// A page `width` × `height` points.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }

    /// ISO A4 portrait, 210 × 297 mm.
    public static let a4 = PDFPageSize(width: 595.276, height: 841.890)
    /// ISO A4 landscape.
    public static let a4Landscape = PDFPageSize(width: 841.890, height: 595.276)
}

/// An RGB colour, each component 0–1.
public struct PDFColor: Sendable, Equatable {
    /// Red.
    public var red: Double
    /// Green.
    public var green: Double
    /// Blue.
    public var blue: Double

    /// A colour from its components, each 0–1.
    public init(red: Double, green: Double, blue: Double) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// A grey: 0 black, 1 white.
    public static func gray(_ level: Double) -> PDFColor { PDFColor(red: level, green: level, blue: level) }
    /// Black.
    public static let black = PDFColor.gray(0)
    /// White.
    public static let white = PDFColor.gray(1)
}

/// Where text sits against its x.
public enum PDFTextAlignment: Sendable {
    /// Text starts at x.
    case left
    /// Text is centred on x.
    case center
    /// Text ends at x.
    case right
}
