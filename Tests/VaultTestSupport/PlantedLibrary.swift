public import Foundation

/// Builds a shared library at `path` whose constructor creates the file `marker` when anything
/// loads it: the proof, for a test, that a library planted where it should not be searched was
/// loaded all the same. Needs a C compiler (`cc`).
public func plantLibrary(at path: String, marker: String) throws {
    guard let compiler = findExecutable("cc") else { throw MissingComponent(description: "no C compiler (cc)") }
    let source = path + ".c"
    let quotedMarker = marker.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
    let program = """
        #include <fcntl.h>
        #include <unistd.h>
        __attribute__((constructor)) static void planted(void) {
            int fd = open("\(quotedMarker)", O_WRONLY | O_CREAT, 0600);
            if (fd >= 0) close(fd);
        }
        """
    try program.write(toFile: source, atomically: true, encoding: .utf8)
    let built = try runTool(compiler, ["-shared", "-fPIC", "-o", path, source])
    guard built.status == 0 else { throw SpawnError(description: "cc failed: \(built.stderr)") }
}
