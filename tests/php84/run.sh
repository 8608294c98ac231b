#!/usr/bin/env bash
# tests/php84/run.sh — the extension on PHP 8.4, as Debian 13 ("trixie")
# ships it, with trixie's hiredis 1.2, Redis 8.0 and Valkey 8.1: a trixie root
# (tests/lib/debian-root.sh: made once with mmdebstrap, a cached tarball),
# and inside it the -Werror build, the C unit tests, the phpt suite against
# Redis 8.0 and against Valkey 8.1, the TLS suite with the packaged hiredis
# 1.2 (hiredis_ssl) and the php-fpm suite — the same suite scripts as on PHP
# 8.2, each labelled with its PHP and server.
set -uo pipefail
source tests/lib/common.sh
source tests/lib/debian-root.sh

ROOT_VERSION=3   # bump when ROOT_PACKAGES or how the root is made changes: a new tarball is made (2: mmdebstrap; 3: the frameworks' extensions)
ROOT_LABEL=php84 ROOT_SUITE=trixie ROOT_EXTRA=
ROOT_PACKAGES="php8.4-dev php8.4-cli php8.4-fpm libhiredis-dev redis-server valkey-server nginx-light apache2-utils
curl libcmocka-dev libssl-dev openssl pkg-config build-essential procps ca-certificates
php8.4-xml php8.4-mbstring php8.4-sqlite3 php8.4-redis"
ROOT_TARBALL="$DISTLOCK_CACHE_DIR/trixie-php84-root-v$ROOT_VERSION.tar.gz"
ROOT_INSIDE_ENV="ROOT_PHP_SERIES=8.4 ROOT_TLS=1"
ROOT_FRAMEWORKS=1
debian_root_suite "Debian 13 root with PHP 8.4"
suite_end
