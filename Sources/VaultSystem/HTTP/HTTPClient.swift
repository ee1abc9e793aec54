import CVaultHTTP
import VaultSecureBytes

#if canImport(Glibc)
    import Glibc
#endif

/// A small blocking HTTP client over libcurl, loaded at run time through the CVaultHTTP shim.
///
/// This file is the only importer of the shim: no curl type or C pointer leaves it. libcurl is
/// loaded on the first request, so commands that never make one pay nothing. Redirects are never
/// followed: the caller sees a 3xx and decides (OpenBao re-sends its token only to known nodes).
/// A client and its copies share one connection: requests to the same server reuse it.
package struct HTTPClient: Sendable {
    /// How requests are sent: TLS trust, proxies and the largest body accepted.
    package struct Configuration: Sendable, Equatable {
        /// A PEM file of CA certificates to trust instead of the system store.
        var caFile: String?
        /// Turns certificate verification off (the caller warns about it).
        var skipVerify = false
        /// The proxies, as the glue read them.
        package var proxies = HTTPProxy.Variables()
        /// The most response body bytes accepted.
        var maxBodyLength = 64 << 20
        /// Seconds a connection may take to be made, when less than the time left before the
        /// deadline: nil for all of it. A client with other servers to try (OpenBao's nodes)
        /// gives up on one that does not answer its connection early; the exchange once
        /// connected still has until the deadline.
        package var connectTimeout: Double?

        package init(
            caFile: String? = nil, skipVerify: Bool = false, proxies: HTTPProxy.Variables = HTTPProxy.Variables(),
            maxBodyLength: Int = 64 << 20
        ) {
            self.caFile = caFile
            self.skipVerify = skipVerify
            self.proxies = proxies
            self.maxBodyLength = maxBodyLength
        }
    }

    /// The shared library loaded at run time.
    static let libraryName = "libcurl.so.4"

    let configuration: Configuration
    private let session = Session()

    package init(_ configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// The shim's session: one curl handle and its open connections, closed with the last copy
    /// of the client.
    private final class Session: @unchecked Sendable {
        // Sendable: the pointer never changes, and the shim serialises the requests made on it
        // with the session's own lock.
        let pointer = CVaultHTTP_SessionCreate()

        deinit { CVaultHTTP_SessionFree(pointer) }
    }

    /// Loads libcurl once; later calls return the first outcome.
    static func load() throws(HTTPError) {
        if let reason = loadOutcome {
            throw HTTPError(
                .library, server: libraryName, reason: "cannot load \(libraryName) (Debian package libcurl4): \(reason)"
            )
        }
    }

    private static let loadOutcome: String? = {
        guard let reason = CVaultHTTP_Load(libraryName) else { return nil }
        defer { free(reason) }
        return String(cString: reason)
    }()

    /// Sends the request and returns the response, whatever its status. Fails when no response
    /// arrives before the deadline, or none can be had (connection, TLS, malformed URL).
    package func send(_ request: HTTPRequest, deadline: Deadline) throws(HTTPError) -> HTTPResponse {
        let server = HTTPURL.origin(of: request.url)
        guard HTTPURL.isHTTP(request.url) else {
            throw HTTPError(.request, server: server, reason: "the address is not an http:// or https:// URL")
        }
        try Self.load()
        let milliseconds = deadline.remainingMilliseconds
        guard milliseconds > 0 else {
            throw HTTPError(.timeout, server: server, reason: "no time left before the deadline")
        }
        let connectMilliseconds = configuration.connectTimeout.map { Int(($0 * 1000).rounded(.up)) } ?? 0
        let proxy = HTTPProxy(configuration.proxies, url: request.url)
        var result = CVaultHTTP_Result()
        let headerLines = request.headers.map { "\($0.name): \($0.value)" }
        withCStrings(headerLines) { headers in
            withOptionalCString(configuration.caFile) { caFile in
                withOptionalCString(proxy.proxy) { proxyURL in
                    withOptionalCString(proxy.noProxy) { noProxy in
                        request.method.withCString { method in
                            request.url.withCString { url in
                                let perform = { (body: UnsafePointer<UInt8>?, length: Int) in
                                    var call = CVaultHTTP_Request(
                                        method: method, url: url, headers: headers, headerCount: headerLines.count,
                                        body: body, bodyLength: length, timeoutMilliseconds: milliseconds,
                                        connectTimeoutMilliseconds: connectMilliseconds,
                                        caFile: caFile, skipVerify: configuration.skipVerify, proxy: proxyURL,
                                        noProxy: noProxy, maxBodyLength: configuration.maxBodyLength)
                                    CVaultHTTP_Perform(session.pointer, &call, &result)
                                }
                                if let body = request.body {
                                    // A non-NULL pointer even for an empty body: it says "send a body".
                                    _ = body.withContiguousStorageIfAvailable { bytes in
                                        if let base = bytes.baseAddress {
                                            perform(base, bytes.count)
                                        } else {
                                            withUnsafePointer(to: UInt8(0)) { perform($0, 0) }
                                        }
                                    }
                                } else {
                                    perform(nil, 0)
                                }
                            }
                        }
                    }
                }
            }
        }
        defer { CVaultHTTP_ResultClear(&result) }
        guard result.failure == CVaultHTTP_FailureNone else {
            let reason = withUnsafeBytes(of: result.reason) { raw in
                String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
            }
            throw HTTPError(HTTPError.Kind(result.failure), server: server, reason: reason, connected: result.connected)
        }
        // Straight from the shim's buffer (wiped by CVaultHTTP_ResultClear) into secret bytes.
        let body =
            result.body.map { SecureBytes(copying: UnsafeRawBufferPointer(start: $0, count: result.bodyLength)) }
            ?? SecureBytes()
        let headerBlock =
            result.headers.map { pointer in
                pointer.withMemoryRebound(to: UInt8.self, capacity: result.headersLength) {
                    Array(UnsafeBufferPointer(start: $0, count: result.headersLength))
                }
            } ?? []
        return HTTPResponse(
            status: result.status, headers: HTTPResponse.parseHeaders(headerBlock), secureBody: body, server: server)
    }
}

extension HTTPError.Kind {
    fileprivate init(_ failure: CVaultHTTP_Failure) {
        switch failure {
        case CVaultHTTP_FailureConnect: self = .connect
        case CVaultHTTP_FailureTimeout: self = .timeout
        case CVaultHTTP_FailureTLS: self = .tls
        case CVaultHTTP_FailureTooLarge: self = .tooLarge
        case CVaultHTTP_FailureRequest: self = .request
        default: self = .exchange
        }
    }
}

private func withOptionalCString<R>(_ text: String?, _ body: (UnsafePointer<CChar>?) -> R) -> R {
    guard let text else { return body(nil) }
    return text.withCString { body($0) }
}

/// Calls `body` with a C array of C strings that lives for the call.
private func withCStrings<R>(_ strings: [String], _ body: (UnsafePointer<UnsafePointer<CChar>>?) -> R) -> R {
    let copies = strings.map { strdup($0)! }
    defer {
        // Header values carry credentials (Authorization, X-Vault-Token): wipe the copies.
        for copy in copies {
            zeroSecret(UnsafeMutableRawBufferPointer(start: copy, count: strlen(copy)))
            free(copy)
        }
    }
    let pointers = copies.map { UnsafePointer($0) }
    return pointers.withUnsafeBufferPointer { body($0.baseAddress) }
}
