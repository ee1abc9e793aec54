/// The command line's global options, before they are combined with the environment.
public struct GlobalOptions: Sendable, Equatable {
    public var backend: String?
    public var file: String?
    public var service: String?

    public init(backend: String? = nil, file: String? = nil, service: String? = nil) {
        self.backend = backend
        self.file = file
        self.service = service
    }
}
