import VaultAge
import VaultAgeFile
import VaultStorage
import VaultSystem

extension BackendDescriptor {
    /// An age file that `age -d` opens (`file`, or `file:PATH` for another one).
    static let file = BackendDescriptor(
        argument: "PATH",
        makeStore: { (factory, path, keys) throws(VaultError) in try factory.makeFileStore(named: path, keys: keys) },
        identity: { (factory, path) throws(VaultError) in FileStore.identity(path: try factory.filePath(path)) },
        diagnose: { (factory, _) throws(VaultError) in try fileRow(factory) })

    /// The file's row: where it is, whether it opens as age, and what unlocks it.
    private static func fileRow(_ factory: StoreFactory) throws(VaultError) -> Diagnosis.Backend {
        let path = try factory.filePath()
        var file = Diagnosis.Backend(kind: .file, usable: true, detail: path)
        if FileSystem.exists(path) {
            if let bytes = try? FileSystem.readRegularFile(path, limit: 1 << 30),
                let types = try? Age.stanzaTypes(of: bytes)
            {
                file.detail += " (exists, encrypted to \(StanzaType.describe(types)))"
            } else {
                file.usable = false
                file.detail += " (exists, but is not a readable age file)"
            }
        } else {
            file.detail += " (not created yet)"
            file.createdOnFirstWrite = true
        }
        file.detail += "; unlocked with \(unlockSource(factory.configuration.fileKeys))"
        return file
    }

    private static func unlockSource(_ variables: Configuration.FileKeyVariables) -> String {
        if let name = variables.first { return name }
        return "a passphrase typed at the terminal (none of \(VaultVariables.unlock.joined(separator: ", ")) is set)"
    }
}
