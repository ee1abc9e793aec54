/// The D-Bus interfaces the provider serves: the Secret Service API's
/// (specifications.freedesktop.org/secret-service-spec) and vault's own private one.
///
/// GDBus checks each call's arguments and each property's type against this XML before the
/// provider sees them, and answers Introspect and org.freedesktop.DBus.Properties from it.
enum ProviderInterface: Int, CaseIterable {
    case service, collection, item, session, prompt, vaultProvider

    var name: String {
        switch self {
        case .service: "org.freedesktop.Secret.Service"
        case .collection: "org.freedesktop.Secret.Collection"
        case .item: "org.freedesktop.Secret.Item"
        case .session: "org.freedesktop.Secret.Session"
        case .prompt: "org.freedesktop.Secret.Prompt"
        case .vaultProvider: "org.vault.Provider1"
        }
    }

    init?(name: String) {
        guard let found = Self.allCases.first(where: { $0.name == name }) else { return nil }
        self = found
    }

    /// The interface's members, as introspection XML.
    private var members: String {
        switch self {
        case .service:
            return """
                <method name="OpenSession"><arg name="algorithm" type="s" direction="in"/>\
                <arg name="input" type="v" direction="in"/><arg name="output" type="v" direction="out"/>\
                <arg name="result" type="o" direction="out"/></method>
                <method name="CreateCollection"><arg name="properties" type="a{sv}" direction="in"/>\
                <arg name="alias" type="s" direction="in"/><arg name="collection" type="o" direction="out"/>\
                <arg name="prompt" type="o" direction="out"/></method>
                <method name="SearchItems"><arg name="attributes" type="a{ss}" direction="in"/>\
                <arg name="unlocked" type="ao" direction="out"/><arg name="locked" type="ao" direction="out"/></method>
                <method name="Unlock"><arg name="objects" type="ao" direction="in"/>\
                <arg name="unlocked" type="ao" direction="out"/><arg name="prompt" type="o" direction="out"/></method>
                <method name="Lock"><arg name="objects" type="ao" direction="in"/>\
                <arg name="locked" type="ao" direction="out"/><arg name="Prompt" type="o" direction="out"/></method>
                <method name="GetSecrets"><arg name="items" type="ao" direction="in"/>\
                <arg name="session" type="o" direction="in"/>\
                <arg name="secrets" type="a{o(oayays)}" direction="out"/></method>
                <method name="ReadAlias"><arg name="name" type="s" direction="in"/>\
                <arg name="collection" type="o" direction="out"/></method>
                <method name="SetAlias"><arg name="name" type="s" direction="in"/>\
                <arg name="collection" type="o" direction="in"/></method>
                <signal name="CollectionCreated"><arg name="collection" type="o"/></signal>
                <signal name="CollectionDeleted"><arg name="collection" type="o"/></signal>
                <signal name="CollectionChanged"><arg name="collection" type="o"/></signal>
                <property name="Collections" type="ao" access="read"/>
                """
        case .collection:
            return """
                <method name="Delete"><arg name="prompt" type="o" direction="out"/></method>
                <method name="SearchItems"><arg name="attributes" type="a{ss}" direction="in"/>\
                <arg name="results" type="ao" direction="out"/></method>
                <method name="CreateItem"><arg name="properties" type="a{sv}" direction="in"/>\
                <arg name="secret" type="(oayays)" direction="in"/><arg name="replace" type="b" direction="in"/>\
                <arg name="item" type="o" direction="out"/><arg name="prompt" type="o" direction="out"/></method>
                <signal name="ItemCreated"><arg name="item" type="o"/></signal>
                <signal name="ItemDeleted"><arg name="item" type="o"/></signal>
                <signal name="ItemChanged"><arg name="item" type="o"/></signal>
                <property name="Items" type="ao" access="read"/>
                <property name="Label" type="s" access="readwrite"/>
                <property name="Locked" type="b" access="read"/>
                <property name="Created" type="t" access="read"/>
                <property name="Modified" type="t" access="read"/>
                """
        case .item:
            return """
                <method name="Delete"><arg name="Prompt" type="o" direction="out"/></method>
                <method name="GetSecret"><arg name="session" type="o" direction="in"/>\
                <arg name="secret" type="(oayays)" direction="out"/></method>
                <method name="SetSecret"><arg name="secret" type="(oayays)" direction="in"/></method>
                <property name="Locked" type="b" access="read"/>
                <property name="Attributes" type="a{ss}" access="readwrite"/>
                <property name="Label" type="s" access="readwrite"/>
                <property name="Type" type="s" access="read"/>
                <property name="Created" type="t" access="read"/>
                <property name="Modified" type="t" access="read"/>
                """
        case .session:
            return #"<method name="Close"/>"#
        case .prompt:
            return """
                <method name="Prompt"><arg name="window-id" type="s" direction="in"/></method>
                <method name="Dismiss"/>
                <signal name="Completed"><arg name="dismissed" type="b"/><arg name="result" type="v"/></signal>
                """
        case .vaultProvider:
            return """
                <method name="UnlockWithFileKey"><arg name="key" type="ay" direction="in"/><arg name="seconds" type="t" direction="in"/></method>
                <method name="Lock"/>
                """
        }
    }

    /// One <node> with every interface, in the order of `allCases` (the shim's bit positions).
    static let introspectionXML =
        "<node>\n"
        + allCases.map { "<interface name=\"\($0.name)\">\n\($0.members)\n</interface>" }.joined(separator: "\n")
        + "\n</node>"
}

/// The D-Bus error names the provider answers with: the spec's, and the bus's standard ones.
enum ProviderError {
    static let isLocked = "org.freedesktop.Secret.Error.IsLocked"
    static let noSession = "org.freedesktop.Secret.Error.NoSession"
    static let noSuchObject = "org.freedesktop.Secret.Error.NoSuchObject"
    static let invalidArgs = "org.freedesktop.DBus.Error.InvalidArgs"
    static let notSupported = "org.freedesktop.DBus.Error.NotSupported"
    static let accessDenied = "org.freedesktop.DBus.Error.AccessDenied"
    static let failed = "org.freedesktop.DBus.Error.Failed"
    static let limitsExceeded = "org.freedesktop.DBus.Error.LimitsExceeded"

    /// The names GLib does not know already, registered so that property failures keep them.
    static let registered = [isLocked, noSession, noSuchObject]
}

/// The provider's object paths.
enum ProviderPath {
    static let root = "/org/freedesktop/secrets"
    static let collectionPrefix = root + "/collection/"
    static let aliasPrefix = root + "/aliases/"
    static let sessionPrefix = root + "/session/"
    static let promptPrefix = root + "/prompt/"
    /// The private interface's object (``ProviderInterface/vaultProvider``).
    static let providerObject = "/org/vault/Provider"
    /// The spec's "no object" (no prompt needed, no collection for an alias).
    static let none = "/"

    /// What a path names, by its shape.
    enum Object: Equatable {
        case service
        /// A collection by id.
        case collection(String)
        /// A collection by alias (`/aliases/NAME`).
        case alias(String)
        case item(collection: String, id: String)
        case session(String)
        case prompt(String)
        case provider
    }

    static func parse(_ path: String) -> Object? {
        if path == root { return .service }
        if path == providerObject { return .provider }
        for (prefix, depth) in [(collectionPrefix, 2), (aliasPrefix, 2), (sessionPrefix, 1), (promptPrefix, 1)] {
            guard path.hasPrefix(prefix) else { continue }
            let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(
                String.init)
            guard (1...depth).contains(parts.count), parts.allSatisfy(isElement) else { return nil }
            switch prefix {
            case collectionPrefix:
                return parts.count == 1 ? .collection(parts[0]) : .item(collection: parts[0], id: parts[1])
            case aliasPrefix: return parts.count == 1 ? .alias(parts[0]) : nil
            case sessionPrefix: return .session(parts[0])
            default: return .prompt(parts[0])
            }
        }
        return nil
    }

    static func collection(_ id: String) -> String { collectionPrefix + id }
    static func item(_ collection: String, _ id: String) -> String { collectionPrefix + collection + "/" + id }

    /// Whether `element` may be one element of an object path: [A-Za-z0-9_], not empty.
    static func isElement(_ element: String) -> Bool {
        !element.isEmpty
            && element.utf8.allSatisfy {
                ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x7A) || $0 == 0x5F
            }
    }

    /// Whether `path` is a valid D-Bus object path.
    static func isValid(_ path: String) -> Bool {
        guard path.hasPrefix("/") else { return false }
        if path == "/" { return true }
        return path.dropFirst().split(separator: "/", omittingEmptySubsequences: false).allSatisfy {
            isElement(String($0))
        }
    }
}
