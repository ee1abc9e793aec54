public import VaultSecureBytes
public import VaultStorage
import VaultSystem

#if canImport(Glibc)
    import Glibc
#endif

/// Living tokens: stored, described and refreshed above the storage edge (docs/tokens.md).
extension Vault {
    /// Stores a living token and its companion, the companion first unless one batch holds both.
    public func setLiving(
        _ name: SecretName, token: SecureBytes, expires: Timestamp?, companion: TokenCompanion
    ) throws(VaultError) {
        try Self.checkSize(token.count)
        try Self.checkNotCompanion(name)
        let time = now()
        let created = try store.read(name)?.metadata.created ?? time
        try store(
            SecretRecord(
                name: name, value: token, metadata: SecretMetadata(created: created, updated: time, expires: expires)),
            companion: companion, at: time)
    }

    /// The companion of `name`, if it is a living token.
    public func companion(of name: SecretName) throws(VaultError) -> TokenCompanion? {
        guard let companionName = try? TokenCompanion.name(for: name),
            let record = try store.read(companionName)
        else { return nil }
        return try TokenCompanion(decoding: record.value, name: name)
    }

    /// One service's secrets (every service's when nil) without companions, as ``list(service:)``,
    /// and the names of the living tokens among them that vault can refresh. One listing of the
    /// store; companions are read only if there are any.
    public func listWithTokens(service: String?) throws(VaultError) -> ([SecretEntry], Set<SecretName>) {
        var entries: [SecretEntry] = []
        var refreshable = Set<SecretName>()
        for entry in try store.list(service: service) {
            guard TokenCompanion.isCompanion(entry.name) else {
                entries.append(entry)
                continue
            }
            let token = TokenCompanion.token(of: entry.name)
            if try companion(of: token)?.canRefresh == true { refreshable.insert(token) }
        }
        return (entries, refreshable)
    }

    /// Refreshes `record` if it is a living token that has expired or expires within the skew;
    /// returns nil when it is not due (or cannot be refreshed), and the new token otherwise.
    ///
    /// Single flight: the refresh runs under ``RefreshLock`` (one process per machine) and, on a
    /// store that several machines share, under the token's ``RefreshLease`` too. The token and
    /// its companion are read again (one ``TokenSnapshot``) once the lock, then the lease, is
    /// held, because another process may have refreshed it while this one waited. The server's
    /// answer is kept in the ``RefreshJournal`` until the store holds it, and a journal an
    /// earlier refresh left is stored first; the new refresh token is stored before the access
    /// token (one batch when the store has one), and both before the token is returned.
    func refreshedIfDue(_ record: SecretRecord) throws(VaultError) -> SecretRecord? {
        guard let settings = tokens, let expires = record.metadata.expires,
            !TokenCompanion.isCompanion(record.name)
        else { return nil }
        let left = expires.secondsSince1970 - now().secondsSince1970
        guard left <= settings.refreshSkew else { return nil }
        // Due by the record's own lifetime (its expiry less its update time): straight to the lock,
        // where the snapshot decides. Otherwise only the companion's lifetime can tell (a token
        // stored with --expires-at lives longer than it has left).
        let lifetime = max(expires.secondsSince1970 - record.metadata.updated.secondsSince1970, 0)
        if left > settings.skew(lifetime: lifetime) {
            guard let companion = try companion(of: record.name), companion.canRefresh,
                left <= settings.skew(lifetime: companion.lifetime)
            else { return nil }
        }
        let name = record.name
        let lock = try RefreshLock.acquire(name, store: store, settings: settings)
        defer { withExtendedLifetime(lock) {} }
        let snapshot = try TokenSnapshot.read(name, from: store)
        guard let companion = snapshot.companion, companion.canRefresh else { return nil }
        let journal = settings.journalDirectory.map { RefreshJournal(directory: $0, name: name, store: store) }
        guard let leases = RefreshLease.store(in: store) else {
            return try refresh(snapshot, since: record, journal: journal, lease: nil, settings: settings)
        }
        // Refreshed by another machine while this process waited for the lock; a journal still
        // waits for the lease, as it writes to the store.
        if let settled = try settled(snapshot, since: record, settings: settings), journal?.exists != true {
            return settled
        }
        let lease = RefreshLease(store: leases, name: name, settings: settings)
        switch try lease.acquire(settled: { () throws(VaultError) -> SecretRecord? in
            guard let token = try store.read(name) else { return nil }
            return token.value != record.value && token.metadata.expires.map { $0 > now() } == true ? token : nil
        }) {
        case .settled(let token):
            return token
        case .taken(let held):
            defer { lease.release(held) }
            let current = try TokenSnapshot.read(name, from: store)
            return try refresh(current, since: record, journal: journal, lease: (lease, held), settings: settings)
        }
    }

    /// The token to return without a refresh: one another process stored while this one waited
    /// (even if its skew window has begun, as long as it has not expired), or one not due; nil
    /// when the snapshot's token is due.
    private func settled(_ snapshot: TokenSnapshot, since record: SecretRecord, settings: TokenSettings)
        throws(VaultError) -> SecretRecord?
    {
        guard let current = snapshot.token else { throw VaultError.notFound(record.name) }
        let changed = current.value != record.value || current.metadata != record.metadata
        if changed, let expires = current.metadata.expires, expires > now() { return current }
        guard let companion = snapshot.companion, companion.canRefresh, let expires = current.metadata.expires,
            expires.secondsSince1970 - now().secondsSince1970 <= settings.skew(lifetime: companion.lifetime)
        else { return current }
        return nil
    }

    /// Refreshes the token of `snapshot`, read under the lock (and the lease), unless a journal
    /// or another process already did. ``fetch(for:_:snapshot:settings:)`` is the one call that
    /// obtains a new token.
    private func refresh(
        _ snapshot: TokenSnapshot, since record: SecretRecord, journal: RefreshJournal?,
        lease: (RefreshLease, RefreshLease.Held)?, settings: TokenSettings
    ) throws(VaultError) -> SecretRecord {
        var snapshot = snapshot
        let name = record.name
        guard let stored = snapshot.token else { throw VaultError.notFound(name) }
        if let journal, try replay(journal, over: stored, snapshot: snapshot, settings: settings) != nil {
            // Stored now: read again, as the companion has a new version.
            snapshot = try TokenSnapshot.read(name, from: store)
        }
        if let settled = try settled(snapshot, since: record, settings: settings) { return settled }
        guard let current = snapshot.token, var latest = snapshot.companion else { throw VaultError.notFound(name) }
        if let (lease, held) = lease, !lease.hasTime(held, seconds: settings.storeRetryBudget + 0.5) {
            throw VaultError(
                .unavailable, "the refresh lease of '\(name.account)' ran short before the refresh", remedy: .retry)
        }
        try settings.approval.check(latest, for: name, in: store)
        let response = try fetch(for: name, latest, snapshot: snapshot, settings: settings)
        let time = now()
        let lifetime = response.expiresIn ?? latest.lifetime
        if let rotated = response.refreshToken { latest.refreshToken = rotated }
        if let lifetime { latest.lifetime = lifetime }
        let refreshed = SecretRecord(
            name: name, value: response.accessToken,
            metadata: SecretMetadata(
                created: current.metadata.created, updated: time,
                expires: lifetime.map { time.adding(seconds: $0) }))
        try keep(
            refreshed, companion: latest, replacing: current, version: snapshot.companionVersion, journal: journal,
            settings: settings)
        return refreshed
    }

    /// Asks the companion's source for a new token: the one place where a token endpoint is called
    /// or a refresh command run, under the refresh lock (and the lease on a shared store).
    private func fetch(
        for name: SecretName, _ companion: TokenCompanion, snapshot: TokenSnapshot, settings: TokenSettings
    ) throws(VaultError) -> TokenResponse {
        switch companion.source {
        case .command(let command):
            let output = try RefreshCommand.run(
                command, environment: settings.commandEnvironment, name: name, timeout: settings.waitLimit)
            return try TokenResponse(commandOutput: output, origin: "the refresh command of '\(name.account)'")
        case .oauth(let client):
            // canRefresh holds here, so a refresh token is present; the endpoint is absent only in
            // settings made without one (tests of command refreshes).
            guard let endpoint = settings.endpoint, let refreshToken = companion.refreshToken else {
                throw VaultError(
                    .expired, "'\(name.account)' cannot be refreshed", remedy: .logIn(account: name.account))
            }
            let secret = try clientSecret(client, service: name.service, snapshot: snapshot)
            return try endpoint.refresh(client, refreshToken: refreshToken, clientSecret: secret, name: name)
        }
    }

    /// The client secret of a confidential client, read from the vault (never from argv).
    func clientSecret(_ client: OAuthClientConfiguration, service: String, snapshot: TokenSnapshot? = nil)
        throws(VaultError) -> SecureBytes?
    {
        guard let secretName = client.clientSecretName else { return nil }
        let name = try SecretName(service: service, account: secretName)
        // The snapshot's read may have got it already (the vault file: one decryption).
        let found: SecretRecord?
        if let known = snapshot?.record(name) { found = known } else { found = try store.read(name) }
        guard let record = found else {
            throw VaultError(
                .notFound,
                "the client secret '\(secretName)' is not in the vault", remedy: .storeClientSecret(name: secretName))
        }
        return record.value
    }

    /// Stores a refresh's outcome: in the journal first (when there is one and it can be
    /// written; a journal that cannot be written does not stop the store write), then in the store.
    private func keep(
        _ token: SecretRecord, companion: TokenCompanion, replacing old: SecretRecord, version: Int?,
        journal: RefreshJournal?, settings: TokenSettings
    ) throws(VaultError) {
        var kept: RefreshJournal?
        if let journal {
            let entry = RefreshJournal.Entry(
                replaces: old.value.withUnsafeBytes { Digest.hex($0, bytes: 16) }, token: token, companion: companion)
            if (try? journal.write(entry)) != nil { kept = journal }
        }
        try storeRetrying(token, companion: companion, version: version, journal: kept, settings: settings)
    }

    /// Stores what `journal` holds if it still applies: the store holds the token the journaled
    /// refresh replaced. Returns the token now stored, or nil when there was nothing to store (a
    /// stale journal is removed).
    private func replay(
        _ journal: RefreshJournal, over current: SecretRecord, snapshot: TokenSnapshot, settings: TokenSettings
    ) throws(VaultError) -> SecretRecord? {
        guard let entry = journal.read(current.name) else { return nil }
        guard entry.replaces == current.value.withUnsafeBytes({ Digest.hex($0, bytes: 16) }) else {
            journal.remove()
            return nil
        }
        try storeRetrying(
            entry.token, companion: entry.companion, version: snapshot.companionVersion, journal: journal,
            settings: settings)
        return entry.token
    }

    /// Writes a refreshed token and its companion, retrying for ``TokenSettings/storeRetryBudget``
    /// seconds, then removes `journal`. If the store still fails, the error's remedy says the token
    /// is kept for the next read (``VaultError/Remedy/nextGetStores(account:after:)``, when
    /// `journal` holds it), and the journal stays. A companion another
    /// machine changed since `version` was read is a conflict: the journal is stale then.
    private func storeRetrying(
        _ token: SecretRecord, companion: TokenCompanion, version: Int?, journal: RefreshJournal?,
        settings: TokenSettings
    ) throws(VaultError) {
        let deadline = Deadline(seconds: settings.storeRetryBudget)
        var pause = 0.1
        while true {
            do {
                try store(token, companion: companion, at: token.metadata.updated, version: version)
                journal?.remove()
                return
            } catch {
                if error.code == .conflict {
                    journal?.remove()
                    throw error
                }
                if Double(deadline.remainingMilliseconds) / 1000 > pause {
                    usleep(UInt32(pause * 1_000_000))
                    pause *= 2
                    continue
                }
                guard journal != nil else { throw error }
                // The store's failure stays as it is; that the token is kept, and what stores
                // it, is the remedy (after the failure's own remedy, which lets it be stored).
                throw VaultError(
                    error.code, error.message, input: error.input,
                    remedy: .nextGetStores(account: token.name.account, after: error.remedy), errno: error.errno)
            }
        }
    }

    /// Removes the journal of a token that stopped being a living token (`rm`, `set`): it holds a
    /// refresh token and must not outlive its token. Under the token's refresh lock, as every
    /// journal access; best effort, as a journal left behind is stale and removed unread later.
    func forgetJournal(of name: SecretName) {
        guard let settings = tokens, let directory = settings.journalDirectory else { return }
        let lock = try? RefreshLock.acquire(name, store: store, settings: settings)
        defer { withExtendedLifetime(lock) {} }
        RefreshJournal(directory: directory, name: name, store: store).remove()
    }

    /// Writes a token and its companion: in one step on a batch store; else the companion first,
    /// so that a crash in between leaves the new refresh token beside the old access token (which
    /// the next read refreshes again), never a refresh token the server has rotated away.
    /// On a lease store, the companion is written with check-and-set against `version`, the one
    /// read under the lease: a holder whose lease another machine took over never overwrites what
    /// that one stored. (A write that landed but whose answer was lost reads back as its own.)
    private func store(_ token: SecretRecord, companion: TokenCompanion, at time: Timestamp, version: Int? = nil)
        throws(VaultError)
    {
        let companionName = try TokenCompanion.name(for: token.name)
        let value = companion.encoded()
        // The companion shares its token's times: reading its own would cost a store read
        // inside the window between the server's answer and the store.
        let companionRecord = SecretRecord(
            name: companionName, value: value, metadata: SecretMetadata(created: token.metadata.created, updated: time))
        if let batch = store as? any SecretBatchStore {
            try batch.write([companionRecord, token])
        } else if let version, let leases = store as? any SecretLeaseStore {
            if try !leases.write(companionRecord, ifVersion: version),
                try leases.read(companionName)?.value != companionRecord.value
            {
                throw VaultError(
                    .conflict,
                    "the refresh settings of '\(token.name.account)' changed on another machine during the refresh",
                    remedy: .retry)
            }
            try store.write(token)
        } else {
            try store.write(companionRecord)
            try store.write(token)
        }
    }

    /// Companions are vault's own: `set` refuses their names.
    static func checkNotCompanion(_ name: SecretName) throws(VaultError) {
        if TokenCompanion.isCompanion(name) {
            throw VaultError(
                .usage,
                "names starting with '\(TokenCompanion.reservedPrefix)' are reserved for vault's refresh settings")
        }
    }
}
