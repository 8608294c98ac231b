#!/usr/bin/env bash
# tests/php85/run.sh — the extension on PHP 8.5, the current PHP, as Debian
# ships it (php8.5 is in experimental): a sid root with experimental added
# (tests/lib/debian-root.sh: made once with mmdebstrap, a cached tarball
# keyed by the php8.5 source version and ROOT_VERSION), and inside it the
# -Werror build (PHP's headers through -isystem: 8.5's zend_operators.h warns
# under -Wextra), the C unit tests on sid's toolchain, the phpt suite against
# Redis 8.6 (experimental's redis-server) and Valkey 9.1 (sid's), the TLS
# tests with sid's hiredis_ssl and the php-fpm suite on php8.5-fpm.
# Thread-safe PHP stays 8.2 (tests/zts): a ZTS build needs PHP's source, and
# the Debian mirror here answers 404 for php8.5's source files (its binary
# packages are served).
set -uo pipefail
source tests/lib/common.sh
source tests/lib/debian-root.sh

ROOT_VERSION=3   # bump when ROOT_PACKAGES or how the root is made changes: a new tarball is made (2: mmdebstrap; 3: the frameworks' extensions)
ROOT_LABEL=php85 ROOT_SUITE=sid ROOT_EXTRA=experimental
ROOT_PACKAGES="php8.5-dev php8.5-cli php8.5-fpm redis-server valkey-server libhiredis-dev nginx-light apache2-utils
curl libcmocka-dev libssl-dev openssl pkg-config build-essential procps ca-certificates
php8.5-xml php8.5-mbstring php8.5-sqlite3"
# From experimental: PHP 8.5 and Redis 8.6 (sid has Redis 8.0); the rest from sid.
ROOT_PIN="php8.5* libphp8.5* redis redis-server redis-tools"
# sid moves: the root is made again when Debian uploads another php8.5.
php_ver=$(apt_source_version php8.5 8.5.) || { suite_fail "php85: no php8.5 source version in the lists"; suite_end; }
ROOT_TARBALL="$DISTLOCK_CACHE_DIR/sid-php${php_ver#*:}-root-v$ROOT_VERSION.tar.gz"
ROOT_INSIDE_ENV="ROOT_PHP_SERIES=8.5 ROOT_TLS=1"
ROOT_FRAMEWORKS=1
debian_root_suite "Debian sid + experimental root with PHP 8.5"
suite_end
