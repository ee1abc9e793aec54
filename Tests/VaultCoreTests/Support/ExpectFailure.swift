import Testing
import VaultCore

@testable import VaultStorage

/// Expects `body` to throw a `VaultError` of `code`, and returns it so that the test can check
/// its message, input or remedy too. Any other outcome (success, another code, another error
/// type) is a test failure: a test that only asks for "some error" passes on the wrong one.
@discardableResult
func expectFailure<T>(
    _ code: VaultError.Code, _ comment: Comment? = nil, sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () throws -> T
) -> VaultError? {
    let note = comment.map { " \($0.rawValue)" } ?? ""
    do {
        _ = try body()
        Issue.record("expected a VaultError .\(code), got success.\(note)", sourceLocation: sourceLocation)
        return nil
    } catch let error as VaultError {
        #expect(error.code == code, "\(error.code): \(error)\(note)", sourceLocation: sourceLocation)
        return error
    } catch {
        Issue.record("expected a VaultError .\(code), got \(error).\(note)", sourceLocation: sourceLocation)
        return nil
    }
}
