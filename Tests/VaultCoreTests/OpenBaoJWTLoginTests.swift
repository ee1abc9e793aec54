import Foundation
import Testing
import VaultSecureBytes
import VaultTestSupport

@testable import VaultCore
@testable import VaultOpenBao
@testable import VaultStorage
@testable import VaultSystem

/// The JWT login's pieces in-process: the order in which the glue picks a login, the refusal
/// lines made from OpenBao's answers, and the token cache's key. The login itself runs against a
/// real server in EndToEndTests/OpenBaoJWTTests.
@Suite("OpenBao JWT login, in-process")
struct OpenBaoJWTLoginTests {
    static let jwt = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJjaSJ9.c2lnbmF0dXJlLXNpZ25hdHVyZQ"

    func credentials(_ environment: [String: String]) throws(VaultError) -> OpenBaoCredentials {
        let factory = StoreFactory(
            options: GlobalOptions(), environment: ["BAO_ADDR": "https://bao.test:8200"].merging(environment) { $1 },
            prompt: nil)
        return try factory.openBaoSettings().credentials
    }

    @Test("BAO_TOKEN, then a JWT (BAO_JWT, BAO_JWT_FILE, the Actions id token), then AppRole, then ~/.vault-token")
    func order() throws {
        let actions = [
            "ACTIONS_ID_TOKEN_REQUEST_URL": "https://actions.test/token?api-version=2.0",
            "ACTIONS_ID_TOKEN_REQUEST_TOKEN": "request-token-value",
        ]
        let approle = ["BAO_ROLE_ID": "role", "BAO_SECRET_ID": "secret"]
        let all = actions.merging(approle) { $1 }.merging(["BAO_JWT_ROLE": "ci", "HOME": "/nonexistent"]) { $1 }
        #expect(try credentials(all.merging(["BAO_TOKEN": "t"]) { $1 }).method == "token from BAO_TOKEN")
        #expect(
            try credentials(all.merging(["BAO_JWT": Self.jwt, "BAO_JWT_FILE": "/f"]) { $1 }).method
                == "JWT login at auth/jwt as role ci with BAO_JWT")
        #expect(
            try credentials(all.merging(["VAULT_JWT_FILE": "/f", "BAO_JWT_MOUNT": "gitlab/"]) { $1 }).method
                == "JWT login at auth/gitlab as role ci with VAULT_JWT_FILE /f")
        #expect(
            try credentials(all.merging(["BAO_JWT_AUDIENCE": "https://bao.test"]) { $1 }).method
                == "JWT login at auth/jwt as role ci with the Actions id token from https://actions.test")
        // The Actions variables alone do not ask for a JWT login: BAO_JWT_ROLE does.
        #expect(
            try credentials(actions.merging(approle) { $1 }).method == "AppRole login at auth/approle")
        let home = try makeTemporaryDirectory(prefix: "vault-jwt-order")
        defer { removeTemporaryDirectory(home) }
        let tokenFile = home.appendingPathComponent(".vault-token").path
        #expect(
            FileManager.default.createFile(
                atPath: tokenFile, contents: Data("t".utf8), attributes: [.posixPermissions: 0o600]))
        #expect(try credentials(["HOME": home.path]).method == "token from \(tokenFile)")
        #expect(try credentials(approle.merging(["HOME": home.path]) { $1 }).method == "AppRole login at auth/approle")
        for environment in [["BAO_JWT_ROLE": "ci", "HOME": home.path], ["BAO_JWT_ROLE": "ci"]] {
            let error = expectFailure(.cannotUnlock) { try credentials(environment) }
            #expect(error?.remedy == .provideJWT, "\(String(describing: error))")
        }
    }

    func answer(_ status: Int, _ error: String) -> OpenBaoClient.Answer {
        OpenBaoClient.Answer(
            status: status, json: .object([("errors", .array([.string(Array(error.utf8))]))]),
            server: "https://bao.test:8200")
    }

    @Test("each refusal OpenBao's jwt method answers becomes one line saying which check failed")
    func refusals() {
        let login = OpenBaoJWTLogin(role: "ci", mount: "jwt", source: .value(SecureBytes(), variable: "BAO_JWT"))
        let actions = OpenBaoJWTLogin(
            role: nil, mount: "jwt",
            source: .actions(requestURL: "https://actions.test/t?q=1", requestToken: SecureBytes(), audience: nil))
        let jwt = SecureBytes(Self.jwt.utf8)
        // The texts of OpenBao 2.x's jwt method (bao server -dev).
        let cases: [(OpenBaoClient.Answer, OpenBaoJWTLogin, String)] = [
            (
                answer(400, "error validating token: invalid expiration time (exp) claim: token is expired"), login,
                "the JWT has expired"
            ),
            (
                answer(400, "error validating token: invalid audience (aud) claim: audience claim does not match"),
                actions, "not one of the role's bound_audiences"
            ),
            (answer(400, "error validating token: invalid issuer (iss) claim"), login, "bound_issuer"),
            (
                answer(400, "error validating token: invalid not before (nbf) claim: token not yet valid"), login,
                "not valid yet"
            ),
            (
                answer(400, "error validating token: error verifying token signature: no known key"), login,
                "signature does not verify"
            ),
            (
                answer(400, #"error validating claims: claim "ref" does not match any associated bound claim values"#),
                login, #"refused the JWT's claims: error validating claims: claim "ref" does not match"#
            ),
            (answer(400, #"role "ci" could not be found"#), login, "no such role at auth/jwt (BAO_JWT_ROLE)"),
            (answer(400, "missing role"), actions, "the default role"),
            (answer(403, "permission denied"), login, "is a jwt auth method enabled at auth/jwt"),
        ]
        for (answer, login, fragment) in cases {
            let line = OpenBaoLogin.jwtRefusal(answer, login: login, jwt: jwt).message
            #expect(line.hasPrefix("https://bao.test:8200 refused the JWT login at auth/jwt ("), "\(line)")
            #expect(line.contains(fragment), "\(line)")
            #expect(!line.contains("\n"))
        }
        // A server that quotes the token (none does today) is not repeated.
        let quoting = answer(400, "bad token \(Self.jwt.split(separator: ".")[2])")
        let line = OpenBaoLogin.jwtRefusal(quoting, login: login, jwt: jwt).message
        // What to do is a remedy, as data: for an Actions id token, the audience vault asks for.
        let audience = answer(
            400, "error validating token: invalid audience (aud) claim: audience claim does not match")
        #expect(OpenBaoLogin.jwtRefusal(audience, login: actions, jwt: jwt).remedy == .jwtAudience(fromActions: true))
        #expect(OpenBaoLogin.jwtRefusal(audience, login: login, jwt: jwt).remedy == .jwtAudience(fromActions: false))
        #expect(!line.contains("c2lnbmF0dXJl") && line.contains("not shown"), "\(line)")
    }

    @Test("the cache key follows the JWT, or the Actions request token and audience")
    func cacheKey() {
        let one = SecureBytes(Self.jwt.utf8)
        let other = SecureBytes((Self.jwt + "x").utf8)
        let value = OpenBaoJWTSource.value(one, variable: "BAO_JWT")
        #expect(value.cacheKey(localJWT: one) == value.cacheKey(localJWT: SecureBytes(Self.jwt.utf8)))
        #expect(value.cacheKey(localJWT: one) != value.cacheKey(localJWT: other))
        #expect(value.cacheKey(localJWT: one).count == 32)
        func actions(_ token: String, _ audience: String?) -> String {
            OpenBaoJWTSource.actions(
                requestURL: "https://actions.test/t?q=1", requestToken: SecureBytes(token.utf8), audience: audience
            ).cacheKey(localJWT: nil)
        }
        #expect(actions("a", "x") == actions("a", "x"))
        #expect(actions("a", "x") != actions("b", "x"))
        #expect(actions("a", "x") != actions("a", "y"))
    }

    @Test("the JWT, its file and the Actions variables never reach exec's command nor a refresh command")
    func keyMaterial() {
        let withheld = [
            "BAO_JWT", "BAO_JWT_FILE", "VAULT_JWT", "VAULT_JWT_FILE", "ACTIONS_ID_TOKEN_REQUEST_TOKEN",
            "ACTIONS_ID_TOKEN_REQUEST_URL", "BAO_TOKEN", "BAO_SECRET_ID", "BAO_SECRET_ID_FILE",
        ]
        for name in withheld {
            #expect(VaultVariables.keyMaterial.contains(name) && StoreFactory.holdsKeyMaterial(name), "\(name)")
        }
        for name in ["BAO_JWT_ROLE", "BAO_JWT_MOUNT", "BAO_JWT_AUDIENCE", "VAULT_JWT_ROLE"] {
            #expect(!StoreFactory.holdsKeyMaterial(name), "\(name)")
        }
    }

    @Test("text that is not a JWT is refused without being quoted")
    func shape() {
        for text in ["", "a.b", "a.b.c.d", "secret-value-with spaces.x.y", "a.b.c\n"] {
            expectFailure(.cannotUnlock) {
                try OpenBaoJWTSource.checkShape(SecureBytes(text.utf8), origin: "BAO_JWT")
            }
        }
        let error = expectFailure(.cannotUnlock) {
            try OpenBaoJWTSource.checkShape(SecureBytes("not-a-jwt-secret".utf8), origin: "BAO_JWT")
        }
        #expect(error?.message.contains("not-a-jwt-secret") == false)
        #expect(throws: Never.self) { try OpenBaoJWTSource.checkShape(SecureBytes(Self.jwt.utf8), origin: "BAO_JWT") }
    }
}
