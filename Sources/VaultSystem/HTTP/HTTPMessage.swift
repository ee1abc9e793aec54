package import VaultSecureBytes
package import VaultStorage

/// One HTTP request: method, URL, header fields and body bytes.
///
/// The body may hold a secret or a credential: nothing in the HTTP layer ever puts it, or a
/// header value, into an error message.
package struct HTTPRequest: Sendable {
    var method: String
    var url: String
    var headers: [(name: String, value: String)]
    /// In secret bytes: a form or JSON body may carry a credential or a secret's value.
    var body: SecureBytes?

    package init(method: String, url: String, headers: [(name: String, value: String)] = [], body: SecureBytes? = nil) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }

    /// A request whose body is a copy of `body` (one that holds no secret).
    init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8]) {
        self.init(method: method, url: url, headers: headers, body: SecureBytes(body))
    }

    /// A POST of an `application/x-www-form-urlencoded` body.
    package static func form(
        _ url: String, _ fields: [(name: String, value: String)], headers: [(name: String, value: String)] = []
    ) -> HTTPRequest {
        HTTPRequest(
            method: "POST", url: url,
            headers: headers + [("Content-Type", "application/x-www-form-urlencoded")],
            body: HTTPForm.encode(fields))
    }

    /// A request with a JSON body.
    static func json(
        _ method: String, _ url: String, _ body: JSONValue, headers: [(name: String, value: String)] = []
    ) -> HTTPRequest {
        HTTPRequest(
            method: method, url: url, headers: headers + [("Content-Type", "application/json")],
            body: body.encoded())
    }
}

/// One HTTP response: status, header fields and body bytes.
///
/// The body may hold a secret (an OpenBao value, an OAuth token): it is kept in ``secureBody``,
/// zeroed when the last copy is released, and ``json()`` parses it in place.
package struct HTTPResponse: Sendable {
    package var status: Int
    var headers: [(name: String, value: String)]
    /// The body bytes.
    package var secureBody: SecureBytes
    /// Where the response came from (`scheme://host:port`), for messages.
    package var server: String

    init(status: Int, headers: [(name: String, value: String)], secureBody: SecureBytes, server: String) {
        self.status = status
        self.headers = headers
        self.secureBody = secureBody
        self.server = server
    }

    /// A copy of the body in an array, which nothing wipes: for a body that holds no secret, or
    /// an API that takes an array (its caller then wipes the copy).
    package var body: [UInt8] { secureBody.unprotectedArray }

    /// The first header of that name (compared without regard to case), or nil.
    package func header(_ name: String) -> String? {
        let wanted = name.lowercased()
        return headers.first { $0.name.lowercased() == wanted }?.value
    }

    /// Whether the status is 2xx.
    var isSuccess: Bool { (200..<300).contains(status) }

    /// The body parsed as JSON. A body that is not JSON is the server's failure (`.unavailable`),
    /// and the message never quotes it.
    package func json() throws(VaultError) -> JSONValue {
        do {
            return try secureBody.withUnsafeBytes { (bytes) throws(VaultError) in try JSONValue.parse(bytes) }
        } catch {
            throw VaultError(.unavailable, "\(server) answered HTTP \(status) with a body that is not JSON")
        }
    }

    /// Parses curl's header block ("Name: value\r\n" lines).
    static func parseHeaders(_ block: [UInt8]) -> [(name: String, value: String)] {
        var headers: [(name: String, value: String)] = []
        for line in block.split(separator: UInt8(ascii: "\n")) {
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { continue }
            let name = String(decoding: line[line.startIndex..<colon], as: UTF8.self)
            let value = String(decoding: line[(colon + 1)...], as: UTF8.self)
            headers.append((name, value.trimmingSpace()))
        }
        return headers
    }
}

extension String {
    fileprivate func trimmingSpace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
