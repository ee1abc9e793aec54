// libFuzzer entry point for the age plugin protocol: `make fuzz` links it with FuzzHarness.swift.
// Not part of any SwiftPM target (see the Makefile and Tests/Fuzz/README.md).

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPlugin(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let failure = FuzzHarness.plugin(bytes) { fatalError(failure) }
    return 0
}
