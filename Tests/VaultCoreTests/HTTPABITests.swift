import Foundation
import Testing
import VaultTestSupport

/// The HTTP shim declares its own copies of libcurl's options, codes and prototypes (it loads
/// libcurl at run time and builds without its headers). These tests hold the copies to the real
/// <curl/curl.h> (libcurl4-openssl-dev, a test package only), and check that nothing links libcurl.
@Suite("HTTP C shim")
struct HTTPABITests {
    @Test("the shim's copies of libcurl declarations match the real headers")
    func declarationsMatchHeaders() throws {
        let compiler = findExecutable("cc") ?? findExecutable("clang")
        let header = [
            "/usr/include/curl/curl.h", "/usr/include/x86_64-linux-gnu/curl/curl.h",
            "/usr/include/aarch64-linux-gnu/curl/curl.h",
        ]
        .first { FileManager.default.fileExists(atPath: $0) }
        try requireComponent(
            compiler == nil ? "no C compiler" : header == nil ? "no libcurl headers (libcurl4-openssl-dev)" : nil)
        guard let compiler else { return }
        let directory = try makeTemporaryDirectory()
        defer { removeTemporaryDirectory(directory) }
        let source = directory.appendingPathComponent("check.c")
        try Self.checkProgram.write(to: source, atomically: true, encoding: .utf8)
        let compiled = try runTool(
            compiler, ["-std=gnu11", "-Wall", "-Werror", "-fsyntax-only", "-I", try Self.shimDirectory(), source.path])
        #expect(compiled.status == 0, "the check does not compile:\n\(compiled.stderr)")
    }

    @Test("binaries do not link libcurl")
    func noLinkTimeDependency() throws {
        let readelf = findExecutable("readelf")
        try requireComponent(readelf == nil ? "readelf is not installed (binutils)" : nil)
        // This test binary contains VaultCore and the shim, as the vault executable does.
        let dynamic = try runTool(readelf!, ["-d", CommandLine.arguments[0]])
        try #require(dynamic.status == 0, "\(dynamic.stderr)")
        let needed = dynamic.stdoutText.split(separator: "\n").filter { $0.contains("(NEEDED)") }
        #expect(!needed.isEmpty)
        #expect(!needed.contains { $0.contains("libcurl") }, "libcurl is linked:\n\(needed.joined(separator: "\n"))")
    }

    /// Sources/CVaultHTTP, found from this file.
    static func shimDirectory(file: String = #filePath) throws -> String {
        let root = try #require(packageRoot(file: file), "no Package.swift above \(file)")
        let directory = root.appendingPathComponent("Sources/CVaultHTTP")
        let header = directory.appendingPathComponent("curl_abi.h").path
        try #require(FileManager.default.fileExists(atPath: header), "no \(header)")
        return directory.path
    }

    /// A C program that fails to compile if a copied declaration differs from the real one.
    static let checkProgram = """
        #include <curl/curl.h>
        #define CVAULTHTTP_ABI_CHECK 1
        #include "curl_abi.h"

        #define SAME(a, b) _Static_assert((a) == (b), #a " == " #b);
        #define COMPATIBLE(a, b) _Static_assert(__builtin_types_compatible_p(a, b), #a " ~ " #b);

        SAME(CVAULTHTTP_CURLOPT_WRITEDATA, CURLOPT_WRITEDATA)
        SAME(CVAULTHTTP_CURLOPT_URL, CURLOPT_URL)
        SAME(CVAULTHTTP_CURLOPT_PROXY, CURLOPT_PROXY)
        SAME(CVAULTHTTP_CURLOPT_ERRORBUFFER, CURLOPT_ERRORBUFFER)
        SAME(CVAULTHTTP_CURLOPT_WRITEFUNCTION, CURLOPT_WRITEFUNCTION)
        SAME(CVAULTHTTP_CURLOPT_POSTFIELDS, CURLOPT_POSTFIELDS)
        SAME(CVAULTHTTP_CURLOPT_HTTPHEADER, CURLOPT_HTTPHEADER)
        SAME(CVAULTHTTP_CURLOPT_HEADERDATA, CURLOPT_HEADERDATA)
        SAME(CVAULTHTTP_CURLOPT_CUSTOMREQUEST, CURLOPT_CUSTOMREQUEST)
        SAME(CVAULTHTTP_CURLOPT_NOBODY, CURLOPT_NOBODY)
        SAME(CVAULTHTTP_CURLOPT_POST, CURLOPT_POST)
        SAME(CVAULTHTTP_CURLOPT_FOLLOWLOCATION, CURLOPT_FOLLOWLOCATION)
        SAME(CVAULTHTTP_CURLOPT_SSL_VERIFYPEER, CURLOPT_SSL_VERIFYPEER)
        SAME(CVAULTHTTP_CURLOPT_CAINFO, CURLOPT_CAINFO)
        SAME(CVAULTHTTP_CURLOPT_HEADERFUNCTION, CURLOPT_HEADERFUNCTION)
        SAME(CVAULTHTTP_CURLOPT_HTTPGET, CURLOPT_HTTPGET)
        SAME(CVAULTHTTP_CURLOPT_SSL_VERIFYHOST, CURLOPT_SSL_VERIFYHOST)
        SAME(CVAULTHTTP_CURLOPT_NOSIGNAL, CURLOPT_NOSIGNAL)
        SAME(CVAULTHTTP_CURLOPT_POSTFIELDSIZE_LARGE, CURLOPT_POSTFIELDSIZE_LARGE)
        SAME(CVAULTHTTP_CURLOPT_TIMEOUT_MS, CURLOPT_TIMEOUT_MS)
        SAME(CVAULTHTTP_CURLOPT_CONNECTTIMEOUT_MS, CURLOPT_CONNECTTIMEOUT_MS)
        SAME(CVAULTHTTP_CURLOPT_NOPROXY, CURLOPT_NOPROXY)
        SAME(CVAULTHTTP_CURLINFO_RESPONSE_CODE, CURLINFO_RESPONSE_CODE)
        SAME(CVAULTHTTP_CURLINFO_CONNECT_TIME_T, CURLINFO_CONNECT_TIME_T)
        SAME(CVAULTHTTP_CURLE_OK, CURLE_OK)
        SAME(CVAULTHTTP_CURLE_UNSUPPORTED_PROTOCOL, CURLE_UNSUPPORTED_PROTOCOL)
        SAME(CVAULTHTTP_CURLE_URL_MALFORMAT, CURLE_URL_MALFORMAT)
        SAME(CVAULTHTTP_CURLE_COULDNT_RESOLVE_PROXY, CURLE_COULDNT_RESOLVE_PROXY)
        SAME(CVAULTHTTP_CURLE_COULDNT_RESOLVE_HOST, CURLE_COULDNT_RESOLVE_HOST)
        SAME(CVAULTHTTP_CURLE_COULDNT_CONNECT, CURLE_COULDNT_CONNECT)
        SAME(CVAULTHTTP_CURLE_WRITE_ERROR, CURLE_WRITE_ERROR)
        SAME(CVAULTHTTP_CURLE_OPERATION_TIMEDOUT, CURLE_OPERATION_TIMEDOUT)
        SAME(CVAULTHTTP_CURLE_SSL_CONNECT_ERROR, CURLE_SSL_CONNECT_ERROR)
        SAME(CVAULTHTTP_CURLE_GOT_NOTHING, CURLE_GOT_NOTHING)
        SAME(CVAULTHTTP_CURLE_SEND_ERROR, CURLE_SEND_ERROR)
        SAME(CVAULTHTTP_CURLE_RECV_ERROR, CURLE_RECV_ERROR)
        SAME(CVAULTHTTP_CURLE_SSL_CERTPROBLEM, CURLE_SSL_CERTPROBLEM)
        SAME(CVAULTHTTP_CURLE_PEER_FAILED_VERIFICATION, CURLE_PEER_FAILED_VERIFICATION)
        SAME(CVAULTHTTP_CURLE_SSL_CACERT_BADFILE, CURLE_SSL_CACERT_BADFILE)
        SAME(CVAULTHTTP_CURLE_PROXY, CURLE_PROXY)
        SAME(CVAULTHTTP_CURL_GLOBAL_DEFAULT, CURL_GLOBAL_DEFAULT)
        SAME(CVAULTHTTP_CURL_ERROR_SIZE, CURL_ERROR_SIZE)
        COMPATIBLE(CVAULTHTTP_STANDIN_CURLcode, CURLcode)
        COMPATIBLE(CVAULTHTTP_STANDIN_CURLoption, CURLoption)
        COMPATIBLE(CVAULTHTTP_STANDIN_CURLINFO, CURLINFO)
        COMPATIBLE(CVAULTHTTP_T_CURL, void)

        // Each prototype against the real function's type (parenthesised names: curl.h may define
        // curl_easy_setopt as a type-checking macro).
        #define PROTOTYPE(ret, name, params) COMPATIBLE(__typeof__(&(name)), ret(*) params)
        CVAULTHTTP_FUNCTIONS(PROTOTYPE)
        """
}
