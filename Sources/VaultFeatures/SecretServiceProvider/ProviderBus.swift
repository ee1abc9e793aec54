import CVaultBus
import VaultSecureBytes
import VaultStorage

#if canImport(Glibc)
    import Glibc
#endif

/// A D-Bus value as the provider reads and writes it: the types the Secret Service API uses.
indirect enum BusValue {
    case string(String)
    case objectPath(String)
    case boolean(Bool)
    case uint32(UInt32)
    case uint64(UInt64)
    /// An `ay`: a secret's bytes (or its parameters), wiped when released.
    case bytes(SecureBytes)
    /// An array of values of the type `element` (a D-Bus type string, needed when it is empty).
    case array(element: String, [BusValue])
    case dictEntry(BusValue, BusValue)
    case tuple([BusValue])
    case variant(BusValue)
    /// A type the provider never reads (GDBus has checked every call against its signature, so
    /// only a variant's content can be of another type).
    case unsupported(String)

    /// A string-to-string dictionary (`a{ss}`).
    static func dictionary(_ pairs: [String: String]) -> BusValue {
        .array(element: "{ss}", pairs.sorted { $0.key < $1.key }.map { .dictEntry(.string($0.key), .string($0.value)) })
    }

    /// A list of object paths (`ao`).
    static func paths(_ paths: [String]) -> BusValue { .array(element: "o", paths.map { .objectPath($0) }) }

    /// The text of a string or object path.
    var text: String? {
        switch self {
        case .string(let text), .objectPath(let text): return text
        default: return nil
        }
    }

    /// The entries of an `a{s…}` array, by key; nil for anything else.
    var entries: [(key: String, value: BusValue)]? {
        guard case .array(_, let values) = self else { return nil }
        var entries: [(key: String, value: BusValue)] = []
        for value in values {
            guard case .dictEntry(let key, let inner) = value, let name = key.text else { return nil }
            entries.append((name, inner))
        }
        return entries
    }
}

/// A D-Bus error answered to a call: its name and one-line message.
struct BusFailure: Error {
    let name: String
    let message: String
}

/// A signal to emit.
struct BusSignal {
    let path: String
    let interface: String
    let name: String
    let arguments: [BusValue]
}

/// A method call, its arguments already checked against the method's signature by GDBus.
struct BusCall {
    let sender: String
    let path: String
    let interface: String
    let method: String
    let arguments: [BusValue]
}

/// The answer to a call (its out-arguments, or a D-Bus error) and the signals to emit after it.
struct BusAnswer {
    var reply: Result<[BusValue], BusFailure>
    var signals: [BusSignal] = []
}

/// What answers the calls a ``ProviderBus`` receives. Called on the bus's thread, one at a time.
protocol BusHandler: AnyObject {
    /// The interfaces of the object at `path`, empty when there is none.
    func interfaces(at path: String) -> [ProviderInterface]
    func call(_ call: BusCall) -> BusAnswer
    func property(_ name: String, of interface: String, at path: String, sender: String) -> Result<BusValue, BusFailure>
    /// Sets a writable property; the signals to emit after it.
    func setProperty(
        _ name: String, of interface: String, at path: String, to value: BusValue, sender: String
    ) -> Result<[BusSignal], BusFailure>
}

/// The provider's connection to the session bus, on GDBus through the CVaultBus shim: the one
/// Swift file that sees its C types.
final class ProviderBus {
    private let server: OpaquePointer
    /// The handler and the server's callbacks' context: retained by this object, which outlives
    /// every callback (they run only inside ``run()``).
    private let box: HandlerBox

    /// The paths registered so far.
    private var registered: Set<String> = []

    /// The object paths whose objects, and those one level below, are fixed: the service, its
    /// collections, aliases, sessions and prompts, and the private interface's object. A
    /// collection's items are registered with ``register(_:)`` as the collection becomes known.
    static let roots = [
        ProviderPath.root, ProviderPath.root + "/collection", ProviderPath.root + "/aliases",
        ProviderPath.root + "/session", ProviderPath.root + "/prompt", ProviderPath.providerObject,
    ]

    /// Loads libgio; the reason when it cannot be loaded.
    static func load() -> String? {
        guard let reason = CVaultBus_Load("libgio-2.0.so.0") else { return nil }
        defer { free(reason) }
        return String(cString: reason)
    }

    /// Connects to the session bus and registers the objects (none answers before ``run()``).
    init(handler: any BusHandler) throws(VaultError) {
        box = HandlerBox(handler)
        let handlers = CVaultBus_Handlers(
            context: Unmanaged.passUnretained(box).toOpaque(),
            interfaces: { context, path in HandlerBox.from(context).interfaces(path) },
            method: { context, sender, path, interface, method, parameters, invocation in
                HandlerBox.from(context).method(sender, path, interface, method, parameters, invocation)
            },
            get_property: { context, sender, path, interface, name, fault in
                HandlerBox.from(context).property(sender, path, interface, name, fault)
            },
            set_property: { context, sender, path, interface, name, value, fault in
                HandlerBox.from(context).setProperty(sender, path, interface, name, value, fault)
            })
        Self.registerErrors
        var error: OpaquePointer?
        guard let made = CVaultBus_ServerNew(ProviderInterface.introspectionXML, handlers, &error) else {
            throw VaultError(.unavailable, "cannot serve on the session bus: \(Self.message(taking: error))")
        }
        server = made
        box.server = made
        for root in Self.roots { try register(root) }
    }

    /// The provider's error names, registered with GLib once (they live as long as the process).
    private static let registerErrors: Void = {
        let names = ProviderError.registered.map { UnsafePointer(strdup($0)!) }
        names.withUnsafeBufferPointer { CVaultBus_RegisterErrors($0.baseAddress!, $0.count) }
    }()

    /// Serves the object at `path` and those one level below it (a collection's items), once.
    func register(_ path: String) throws(VaultError) {
        guard !registered.contains(path) else { return }
        var error: OpaquePointer?
        guard CVaultBus_ServerRegister(server, path, &error) else {
            throw VaultError(.other, "cannot serve \(path): \(Self.message(taking: error))")
        }
        registered.insert(path)
    }

    deinit { CVaultBus_ServerFree(server) }

    /// Asks the bus for `name`; throws `.conflict` if another connection owns it.
    func requestName(_ name: String) throws(VaultError) {
        var error: OpaquePointer?
        switch CVaultBus_ServerRequestName(server, name, &error) {
        case 1, 4: return  // the primary owner now, or already
        case 0: throw VaultError(.unavailable, "cannot request \(name): \(Self.message(taking: error))")
        default: throw VaultError(.conflict, "another program already provides \(name) on this bus")
        }
    }

    /// Serves until the bus goes away or ``stop()`` is called from a handler.
    func run() { CVaultBus_ServerRun(server) }

    func stop() { CVaultBus_ServerStop(server) }

    /// The uid of the process behind a unique bus name; nil if the bus does not say.
    func uid(of sender: String) -> UInt32? {
        var uid: UInt32 = 0
        var error: OpaquePointer?
        guard CVaultBus_ServerSenderUID(server, sender, &uid, &error) else {
            CVaultBus_ErrorFree(error)
            return nil
        }
        return uid
    }

    /// Whether the client with this unique bus name is still connected (true when unknown).
    func isConnected(_ sender: String) -> Bool { CVaultBus_ServerNameHasOwner(server, sender) != 0 }

    fileprivate static func message(taking error: OpaquePointer?) -> String {
        guard let error else { return "unknown error" }
        defer { CVaultBus_ErrorFree(error) }
        return String(cString: CVaultBus_ErrorMessage(error))
    }

    /// Turns the shim's callbacks into the handler's calls, and values both ways.
    ///
    /// `@unchecked Sendable` is not claimed: the callbacks run on the one thread that runs the
    /// loop, which is the thread that made and owns this box.
    private final class HandlerBox {
        let handler: any BusHandler
        var server: OpaquePointer?

        init(_ handler: any BusHandler) { self.handler = handler }

        static func from(_ context: UnsafeMutableRawPointer?) -> HandlerBox {
            Unmanaged<HandlerBox>.fromOpaque(context!).takeUnretainedValue()
        }

        func interfaces(_ path: UnsafePointer<CChar>) -> UInt64 {
            handler.interfaces(at: String(cString: path)).reduce(0) { $0 | (1 << UInt64($1.rawValue)) }
        }

        func method(
            _ sender: UnsafePointer<CChar>, _ path: UnsafePointer<CChar>, _ interface: UnsafePointer<CChar>,
            _ method: UnsafePointer<CChar>, _ parameters: OpaquePointer, _ invocation: OpaquePointer
        ) {
            guard case .tuple(let arguments) = BusValue.read(parameters) else {
                CVaultBus_ReturnError(invocation, ProviderError.invalidArgs, "the arguments are not a tuple")
                return
            }
            let answer = handler.call(
                BusCall(
                    sender: String(cString: sender), path: String(cString: path),
                    interface: String(cString: interface), method: String(cString: method), arguments: arguments))
            switch answer.reply {
            case .success(let values): CVaultBus_Return(invocation, BusValue.tuple(values).build())
            case .failure(let failure): CVaultBus_ReturnError(invocation, failure.name, failure.message)
            }
            emit(answer.signals)
        }

        func property(
            _ sender: UnsafePointer<CChar>, _ path: UnsafePointer<CChar>, _ interface: UnsafePointer<CChar>,
            _ name: UnsafePointer<CChar>, _ fault: OpaquePointer?
        ) -> OpaquePointer? {
            switch handler.property(
                String(cString: name), of: String(cString: interface), at: String(cString: path),
                sender: String(cString: sender))
            {
            case .success(let value): return value.build()
            case .failure(let failure):
                CVaultBus_Fail(fault, failure.name, failure.message)
                return nil
            }
        }

        func setProperty(
            _ sender: UnsafePointer<CChar>, _ path: UnsafePointer<CChar>, _ interface: UnsafePointer<CChar>,
            _ name: UnsafePointer<CChar>, _ value: OpaquePointer, _ fault: OpaquePointer?
        ) -> Bool {
            switch handler.setProperty(
                String(cString: name), of: String(cString: interface), at: String(cString: path),
                to: BusValue.read(value), sender: String(cString: sender))
            {
            case .success(let signals):
                emit(signals)
                return true
            case .failure(let failure):
                CVaultBus_Fail(fault, failure.name, failure.message)
                return false
            }
        }

        /// Emits each signal; one that cannot be queued is dropped (the bus is going away).
        func emit(_ signals: [BusSignal]) {
            guard let server else { return }
            for signal in signals {
                var error: OpaquePointer?
                if !CVaultBus_ServerEmit(
                    server, signal.path, signal.interface, signal.name, BusValue.tuple(signal.arguments).build(), &error
                ) {
                    CVaultBus_ErrorFree(error)
                }
            }
        }
    }
}

extension BusValue {
    /// Reads a GVariant (borrowed) into a value.
    fileprivate static func read(_ variant: OpaquePointer) -> BusValue {
        let type = String(cString: CVaultBus_VariantType(variant))
        switch type {
        case "s", "g", "o":
            var length = 0
            let text = CVaultBus_VariantString(variant, &length)
            let string = String(decoding: UnsafeRawBufferPointer(start: text, count: length), as: UTF8.self)
            return type == "o" ? .objectPath(string) : .string(string)
        case "b": return .boolean(CVaultBus_VariantBoolean(variant))
        case "u": return .uint32(CVaultBus_VariantUInt32(variant))
        case "t": return .uint64(CVaultBus_VariantUInt64(variant))
        case "ay":
            var length = 0
            let bytes = CVaultBus_VariantBytes(variant, &length)
            return .bytes(SecureBytes(copying: UnsafeRawBufferPointer(start: bytes, count: bytes == nil ? 0 : length)))
        case "v":
            let inner = CVaultBus_VariantInner(variant)
            defer { CVaultBus_VariantUnref(inner) }
            return .variant(read(inner))
        default:
            guard let first = type.first, first == "a" || first == "(" || first == "{" else {
                return .unsupported(type)
            }
            let children = (0..<CVaultBus_VariantCount(variant)).map { (index) -> BusValue in
                let child = CVaultBus_VariantChild(variant, index)
                defer { CVaultBus_VariantUnref(child) }
                return read(child)
            }
            switch first {
            case "a": return .array(element: String(type.dropFirst()), children)
            case "{" where children.count == 2: return .dictEntry(children[0], children[1])
            default: return .tuple(children)
            }
        }
    }

    /// A floating GVariant of this value, for the shim to send.
    fileprivate func build() -> OpaquePointer {
        switch self {
        case .string(let text): return CVaultBus_BuildString(text)
        case .objectPath(let path): return CVaultBus_BuildObjectPath(ProviderPath.isValid(path) ? path : "/")
        case .boolean(let value): return CVaultBus_BuildBoolean(value)
        case .uint32(let value): return CVaultBus_BuildUInt32(value)
        case .uint64(let value): return CVaultBus_BuildUInt64(value)
        case .bytes(let bytes):
            return bytes.withUnsafeBytes {
                CVaultBus_BuildBytes($0.baseAddress?.assumingMemoryBound(to: UInt8.self), $0.count)
            }
        case .array(let element, let values):
            let built: [OpaquePointer] = values.map { $0.build() }
            return built.withUnsafeBufferPointer { CVaultBus_BuildArray(element, $0.baseAddress, $0.count) }
        case .dictEntry(let key, let value): return CVaultBus_BuildDictEntry(key.build(), value.build())
        case .tuple(let values):
            let built: [OpaquePointer] = values.map { $0.build() }
            return built.withUnsafeBufferPointer { CVaultBus_BuildTuple($0.baseAddress, $0.count) }
        case .variant(let value): return CVaultBus_BuildVariant(value.build())
        case .unsupported: return CVaultBus_BuildString("")
        }
    }
}
