public import VaultStorage

/// Variables that a name derived from a secret's name must never set (`vault exec --all` or a
/// bare `--env NAME`): they decide which code the command loads or runs, not what data it sees.
///
/// A secret named `path` or `ld_preload` would otherwise take over the command: its value would
/// pick the programs found, or the libraries preloaded into each of them. Only an explicit
/// `--env VAR=NAME` may set one of these, because then the person chose the variable.
///
/// The list, and why each entry is on it:
/// - **The dynamic loader and glibc**: every `LD_*` variable, and the variables glibc itself
///   strips from the environment of set-user-ID programs (`sysdeps/generic/unsecvars.h`) because
///   they load code or redirect files: `GCONV_PATH`, `GETCONF_DIR`, `GLIBC_TUNABLES`,
///   `HOSTALIASES`, `LOCALDOMAIN`, `LOCPATH`, `MALLOC_TRACE`, `NIS_PATH`, `NLSPATH`,
///   `RESOLV_HOST_CONF`, `RES_OPTIONS`, `TMPDIR`, `TZDIR`.
/// - **Shells** (POSIX sh, bash, dash, zsh), which read these before or while running a script:
///   `PATH`, `IFS`, `ENV`, `BASH_ENV`, `SHELLOPTS`, `BASHOPTS`, `PS4` (expanded at every traced
///   command), `PROMPT_COMMAND`, `CDPATH`, `GLOBIGNORE`, `BASH_XTRACEFD`, `ZDOTDIR`, `FPATH`.
/// - **Interpreters' start-up and module paths**, which run or load code before the program:
///   `PYTHONSTARTUP`, `PYTHONPATH`, `PYTHONHOME`, `PYTHONINSPECT`, `PERL5LIB`, `PERL5OPT`,
///   `PERLLIB`, `RUBYOPT`, `RUBYLIB`, `NODE_OPTIONS`, `NODE_PATH`, `JAVA_TOOL_OPTIONS`,
///   `_JAVA_OPTIONS`, `JDK_JAVA_OPTIONS`.
///
/// Any variable the command would inherit is also refused (``EnvironmentBinding/checkDerived(_:inherited:)``),
/// which covers whatever a list cannot name: a derived name only ever adds a variable.
public enum ProtectedVariables {
    /// Exact names (see the type's documentation for why each is here).
    public static let names: Set<String> = [
        // glibc's unsecure variables (sysdeps/generic/unsecvars.h), less the LD_ ones.
        "GCONV_PATH", "GETCONF_DIR", "GLIBC_TUNABLES", "HOSTALIASES", "LOCALDOMAIN", "LOCPATH", "MALLOC_TRACE",
        "NIS_PATH", "NLSPATH", "RESOLV_HOST_CONF", "RES_OPTIONS", "TMPDIR", "TZDIR",
        // Shells.
        "PATH", "IFS", "ENV", "BASH_ENV", "SHELLOPTS", "BASHOPTS", "PS4", "PROMPT_COMMAND", "CDPATH", "GLOBIGNORE",
        "BASH_XTRACEFD", "ZDOTDIR", "FPATH",
        // Interpreters.
        "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PYTHONINSPECT", "PERL5LIB", "PERL5OPT", "PERLLIB", "RUBYOPT",
        "RUBYLIB", "NODE_OPTIONS", "NODE_PATH", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS",
    ]

    /// Prefixes of whole families: the dynamic loader's variables.
    public static let prefixes = ["LD_"]

    /// Whether a derived name may not set `variable`. Compared byte by byte.
    public static func contains(_ variable: String) -> Bool {
        names.contains { $0.utf8.elementsEqual(variable.utf8) }
            || prefixes.contains { variable.utf8.starts(with: $0.utf8) }
    }
}

extension EnvironmentBinding {
    /// Refuses a derived binding that would replace a variable of `inherited` (the environment
    /// the command inherits) or set a ``ProtectedVariables`` one; explicit bindings pass.
    ///
    /// Checked before any secret is read, so nothing runs and nothing is unlocked.
    public static func checkDerived(_ bindings: [EnvironmentBinding], inherited: Set<String>) throws(VaultError) {
        for binding in bindings where binding.derived {
            let inheritedName = inherited.contains { $0.utf8.elementsEqual(binding.variable.utf8) }
            guard inheritedName || ProtectedVariables.contains(binding.variable) else { continue }
            let why =
                inheritedName
                ? "which the command would inherit" : "which decides what code the command loads or runs"
            throw VaultError(
                .usage,
                "the secret '\(binding.name.account)' would set \(binding.variable), \(why)", remedy: .bindExplicitly)
        }
    }
}
