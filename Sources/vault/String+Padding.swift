/// Left-aligned columns in the text output of `doctor`, `show` and `ls`.
extension String {
    /// The string followed by spaces up to `width` characters, and by one space at least, so
    /// that a longer string still stays apart from the next column.
    func padding(to width: Int) -> String {
        count >= width ? self + " " : self + String(repeating: " ", count: width - count)
    }
}
