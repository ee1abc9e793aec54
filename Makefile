# vault: build, install, test. See README.md.
#   make install   build dependencies, release build, install to $(DESTDIR)$(PREFIX)
#   make test      test dependencies, full suite (inside a private D-Bus session with gnome-keyring)
#   make lint      swift format lint --strict
#   make bench     benchmarks against the peer tools (docs/benchmarks.md)
#   make fuzz      fuzz the age parser and the vault document decoder for FUZZ_SECONDS

PREFIX ?= /usr/local
DESTDIR ?=
SWIFT ?= swift
FUZZ_SECONDS ?= 60

# Debian packages: libsecret's headers for the shim (the binary loads libsecret at run time).
BUILD_PACKAGES = libsecret-1-dev pkg-config
# Peers and a private Secret Service for the tests; python3 inflates the zlib test vectors;
# zsh, fish and groff check the completion scripts and the man page.
TEST_PACKAGES = $(BUILD_PACKAGES) age libsecret-1-0 libsecret-tools gnome-keyring dbus libglib2.0-bin python3 python3-keyring python3-dbus gcc binutils zsh fish groff-base
BENCH_PACKAGES = $(TEST_PACKAGES) hyperfine pass gnupg gnuplot-nox

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)

# Installs the Debian packages in $(1) that are missing; does nothing when all are present.
define apt_install
	@missing=""; for p in $(1); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	if [ -n "$$missing" ]; then \
		echo "installing Debian packages:$$missing"; \
		$(SUDO) apt-get update -qq && \
		DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq $$missing >/dev/null; \
	fi
endef

.PHONY: all build build-deps test-deps install uninstall test lint bench fuzz clean

all: build

build-deps:
	$(call apt_install,$(BUILD_PACKAGES))

test-deps:
	$(call apt_install,$(TEST_PACKAGES))

build: build-deps
	$(SWIFT) build -c release --static-swift-stdlib --product vault

install: build
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 "$$($(SWIFT) build -c release --static-swift-stdlib --show-bin-path)/vault" $(DESTDIR)$(PREFIX)/bin/vault
	install -m 0644 docs/vault.1 $(DESTDIR)$(PREFIX)/share/man/man1/vault.1

uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/vault $(DESTDIR)$(PREFIX)/share/man/man1/vault.1

# The whole suite runs inside a private D-Bus session with an unlocked gnome-keyring and a
# throwaway HOME (Tests/with-keyring.sh). VAULT_TEST_KEYRING=1 makes a missing keyring a failure.
test: test-deps
	$(SWIFT) build --build-tests
	VAULT_BINARY="$$($(SWIFT) build --show-bin-path)/vault" VAULT_TEST_KEYRING=1 \
		dbus-run-session -- sh Tests/with-keyring.sh $(SWIFT) test --skip-build

lint:
	$(SWIFT) format lint --strict --recursive Package.swift Sources Tests

clean:
	rm -rf .build .build-*
