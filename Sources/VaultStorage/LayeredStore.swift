/// A store made of other stores that writes through to one of them: a lazy migration writes to
/// its primary store. A capability of that store (a lease it can hold, a check before a
/// refresh) is the layered store's, since that is where refreshed tokens are written.
package protocol LayeredStore: SecretStore {
    /// The store this one writes to.
    var writesTo: any SecretStore { get }
}

extension SecretStore {
    /// This store as `Capability`, or the store it writes through to (``LayeredStore``) as one.
    package func capability<Capability>(_: Capability.Type) -> Capability? {
        if let capable = self as? Capability { return capable }
        if let layered = self as? any LayeredStore { return layered.writesTo.capability(Capability.self) }
        return nil
    }
}
