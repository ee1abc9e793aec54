// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "vault",
    products: [
        .executable(name: "vault", targets: ["vault"]),
        .library(name: "VaultCore", targets: ["VaultCore"]),
        .library(name: "VaultAge", targets: ["VaultAge"]),
        .library(name: "VaultSecureBytes", targets: ["VaultSecureBytes"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-crypto.git", exact: "4.5.2")
    ],
    targets: [
        // Bytes that hold a secret (SecureBytes) and the one place memory that held one is
        // zeroed; below every other module, so that naming a secret needs no age or storage code.
        .target(name: "VaultSecureBytes"),
        // The age v1 file format (age-encryption.org/v1): header, stanzas, STREAM payload.
        .target(
            name: "VaultAge",
            dependencies: [
                "VaultSecureBytes",
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // Loads a shared library at run time for the C shims below (dlopen, dlsym).
        .target(name: "CVaultLoader", linkerSettings: [.linkedLibrary("dl")]),
        // C shim: loads libsecret at run time and wraps what Swift cannot call.
        .target(name: "CVaultSecret", dependencies: ["CVaultLoader"]),
        // C shim: loads libcurl at run time and makes the variadic calls Swift cannot.
        .target(name: "CVaultHTTP", dependencies: ["CVaultLoader"]),
        // C shim: loads libgio at run time and serves objects on D-Bus with GDBus (the provider's
        // side of the Secret Service, `vault secret-service serve`).
        .target(name: "CVaultBus", dependencies: ["CVaultLoader"]),
        // C shim for process-level calls Swift cannot make (variadic prctl, GNU-only execvpe,
        // close_range's close-on-exec flag, posix_spawn's closefrom action).
        .target(name: "CVaultProcess"),
        // The layers of vault's library, bottom to top. Each is a target so that the compiler keeps
        // the layering: a lower target cannot name a higher one, and what crosses a boundary is
        // declared `package` (or `public` for the tool). None of them prints or exits.
        //
        // The model every layer shares: VaultError (with Errno), SecretName, SecretRecord, the
        // SecretStore protocol and its capabilities, MemoryStore (the test double), and the Vault
        // facade over one store, to which each feature adds its verbs.
        .target(name: "VaultStorage", dependencies: ["VaultSecureBytes"]),
        // The system below the stores: system calls, files, locks, the kernel keyring, child
        // processes, JSON, HTTP (over libcurl, loaded at run time) and output masking.
        .target(
            name: "VaultSystem",
            dependencies: [
                "VaultStorage",
                "VaultSecureBytes",
                "CVaultHTTP",
                "CVaultProcess",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Backend: the age file (`age -d` opens it), its keys, unlock and header trust.
        .target(
            name: "VaultAgeFile",
            dependencies: ["VaultStorage", "VaultSystem", "VaultAge", "VaultSecureBytes"]
        ),
        // Backend: an OpenBao or Vault server's KV store.
        .target(
            name: "VaultOpenBao",
            dependencies: [
                "VaultStorage",
                "VaultSystem",
                "VaultSecureBytes",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // Backend: the Secret Service on the session bus (libsecret, loaded at run time), and the
        // client's half of its encrypted session.
        .target(
            name: "VaultSecretService",
            dependencies: [
                "VaultStorage",
                "VaultSystem",
                "VaultSecureBytes",
                "CVaultSecret",
                .product(name: "Crypto", package: "swift-crypto"),
                // AES for the Secret Service session (SecretServiceSession.swift).
                .product(name: "_CryptoExtras", package: "swift-crypto"),
            ]
        ),
        // What vault does with secrets, over any store: tokens and their refresh, credentials for
        // git and docker, references and templates, environments, import and export, migration,
        // one-time codes, git merges of the file, and the Secret Service provider.
        .target(
            name: "VaultFeatures",
            dependencies: [
                "VaultStorage",
                "VaultSystem",
                "VaultAgeFile",
                "VaultSecretService",
                "VaultAge",
                "VaultSecureBytes",
                "CVaultBus",
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        // The glue: configuration, backend resolution and the stores it builds, diagnosis, and
        // the provider's launch. The tool's entry into the library.
        .target(
            name: "VaultCore",
            dependencies: [
                "VaultStorage",
                "VaultSystem",
                "VaultAgeFile",
                "VaultOpenBao",
                "VaultSecretService",
                "VaultFeatures",
                "VaultAge",
                "VaultSecureBytes",
                "CVaultProcess",
            ]
        ),
        // The command-line tool: argument parsing, terminal I/O, exit codes.
        .executableTarget(
            name: "vault",
            dependencies: [
                "VaultCore", "VaultFeatures", "VaultStorage", "VaultSystem", "VaultAgeFile", "VaultOpenBao",
                "VaultSecretService", "VaultAge", "VaultSecureBytes", "CVaultProcess",
            ]
        ),
        // Helpers shared by the test targets: running tools, temporary folders, a pseudo-terminal.
        .target(name: "CVaultTestSupport", path: "Tests/CVaultTestSupport"),
        .target(name: "VaultTestSupport", dependencies: ["CVaultTestSupport"], path: "Tests/VaultTestSupport"),
        .testTarget(name: "VaultSecureBytesTests", dependencies: ["VaultSecureBytes", "VaultTestSupport"]),
        .testTarget(name: "VaultAgeTests", dependencies: ["VaultAge", "VaultSecureBytes", "VaultTestSupport"]),
        .testTarget(
            name: "VaultCoreTests",
            dependencies: [
                "VaultCore", "VaultFeatures", "VaultStorage", "VaultSystem", "VaultAgeFile", "VaultOpenBao",
                "VaultSecretService", "VaultAge", "VaultSecureBytes", "VaultTestSupport",
            ],
            exclude: ["Servers"]),
        .testTarget(name: "EndToEndTests", dependencies: ["VaultAge", "VaultSecureBytes", "VaultTestSupport"]),
        // The command-line parser and table, in-process (`@testable import vault`).
        .testTarget(
            name: "VaultCommandLineTests",
            dependencies: ["vault", "VaultCore", "VaultFeatures", "VaultStorage", "VaultSystem", "VaultSecureBytes"]),
    ]
)

for target in package.targets where !target.name.hasPrefix("C") {
    var settings = target.swiftSettings ?? []
    settings.append(.enableUpcomingFeature("InternalImportsByDefault"))
    settings.append(.enableUpcomingFeature("ExistentialAny"))
    settings.append(.enableUpcomingFeature("MemberImportVisibility"))
    target.swiftSettings = settings
}
