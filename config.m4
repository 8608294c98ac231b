dnl config.m4 for the distlock extension: finds hiredis (pkg-config
dnl "hiredis >= 0.14", or --with-hiredis=DIR), and hiredis_ssl for TLS where
dnl hiredis >= 1.0 has it, and builds the core (src/core, pure C) and the Zend
dnl glue (src/php).

PHP_ARG_ENABLE([distlock],
  [whether to enable distlock support],
  [AS_HELP_STRING([--enable-distlock], [Enable distlock (distributed locks on Redis)])],
  [yes])

PHP_ARG_WITH([hiredis],
  [hiredis install prefix],
  [AS_HELP_STRING([[--with-hiredis[=DIR]]], [distlock: hiredis install prefix (default: pkg-config)])],
  [autodetect],
  [no])

PHP_ARG_ENABLE([distlock-fallbacks],
  [whether to force distlock's portable fallbacks],
  [AS_HELP_STRING([--enable-distlock-fallbacks], [distlock: take the portable paths (getentropy, poll, a self-pipe) even where getrandom, ppoll and pthread_condattr_setclock exist; how Linux tests what macOS runs])],
  [no],
  [no])

if test "$PHP_DISTLOCK" != "no"; then
  dnl hiredis itself. TLS (rediss://) needs hiredis >= 1.0 built with SSL
  dnl (libhiredis_ssl) and OpenSSL >= 1.1 headers: compiled in only when all
  dnl are found (DL_HAVE_TLS), refused with a clear message otherwise.
  DISTLOCK_TLS=no
  if test "$PHP_HIREDIS" = "autodetect" || test "$PHP_HIREDIS" = "yes"; then
    PKG_CHECK_MODULES([HIREDIS], [hiredis >= 0.14])
    PHP_EVAL_INCLINE($HIREDIS_CFLAGS)
    PHP_EVAL_LIBLINE($HIREDIS_LIBS, DISTLOCK_SHARED_LIBADD)
    DISTLOCK_HIREDIS_VERSION=`$PKG_CONFIG --modversion hiredis`
    PKG_CHECK_MODULES([HIREDIS_SSL], [hiredis_ssl >= 1.0 openssl >= 1.1.0], [DISTLOCK_TLS=yes], [DISTLOCK_TLS=no])
    if test "$DISTLOCK_TLS" = "yes"; then
      PHP_EVAL_INCLINE($HIREDIS_SSL_CFLAGS)
      PHP_EVAL_LIBLINE($HIREDIS_SSL_LIBS, DISTLOCK_SHARED_LIBADD)
    fi
  else
    AC_MSG_CHECKING([for hiredis in $PHP_HIREDIS])
    if test -r "$PHP_HIREDIS/include/hiredis/hiredis.h"; then
      AC_MSG_RESULT([found])
    else
      AC_MSG_RESULT([not found])
      AC_MSG_ERROR([hiredis headers not found in $PHP_HIREDIS/include/hiredis])
    fi
    PHP_CHECK_LIBRARY(hiredis, redisConnectWithTimeout,
      [
        PHP_ADD_INCLUDE($PHP_HIREDIS/include)
        PHP_ADD_LIBRARY_WITH_PATH(hiredis, $PHP_HIREDIS/$PHP_LIBDIR, DISTLOCK_SHARED_LIBADD)
      ],
      [AC_MSG_ERROR([libhiredis not found in $PHP_HIREDIS/$PHP_LIBDIR])],
      [-L$PHP_HIREDIS/$PHP_LIBDIR])
    DISTLOCK_HIREDIS_VERSION=`sed -n 's/^#define HIREDIS_\(MAJOR\|MINOR\|PATCH\) \([[0-9]]*\).*/\2/p' "$PHP_HIREDIS/include/hiredis/hiredis.h" | tr '\n' . | sed 's/\.$//'`
    if test -r "$PHP_HIREDIS/include/hiredis/hiredis_ssl.h"; then
      dnl OpenSSL: from pkg-config when it knows it, else the default paths.
      if test -n "$PKG_CONFIG" && $PKG_CONFIG --exists 'openssl >= 1.1.0'; then
        DISTLOCK_SSL_CFLAGS=`$PKG_CONFIG --cflags openssl`
        DISTLOCK_SSL_LIBS=`$PKG_CONFIG --libs openssl`
      else
        DISTLOCK_SSL_CFLAGS=
        DISTLOCK_SSL_LIBS="-lssl -lcrypto"
      fi
      dnl Linked in this order (hiredis_ssl needs hiredis): PHP_CHECK_LIBRARY
      dnl would put hiredis first, which --as-needed linkers then drop.
      distlock_old_LIBS=$LIBS
      distlock_old_CFLAGS=$CFLAGS
      LIBS="-L$PHP_HIREDIS/$PHP_LIBDIR -lhiredis_ssl -lhiredis $DISTLOCK_SSL_LIBS $LIBS"
      CFLAGS="-I$PHP_HIREDIS/include $DISTLOCK_SSL_CFLAGS $CFLAGS"
      AC_MSG_CHECKING([for redisInitiateSSL in -lhiredis_ssl (with OpenSSL headers)])
      AC_LINK_IFELSE([AC_LANG_PROGRAM([[
#include <openssl/ssl.h>
#include <hiredis/hiredis.h>
#include <hiredis/hiredis_ssl.h>
]], [[return redisInitiateSSL((redisContext *)0, (SSL *)0);]])], [DISTLOCK_TLS=yes], [DISTLOCK_TLS=no])
      AC_MSG_RESULT([$DISTLOCK_TLS])
      LIBS=$distlock_old_LIBS
      CFLAGS=$distlock_old_CFLAGS
      if test "$DISTLOCK_TLS" = "yes"; then
        PHP_ADD_LIBRARY_WITH_PATH(hiredis_ssl, $PHP_HIREDIS/$PHP_LIBDIR, DISTLOCK_SHARED_LIBADD)
        PHP_EVAL_INCLINE($DISTLOCK_SSL_CFLAGS)
        PHP_EVAL_LIBLINE($DISTLOCK_SSL_LIBS, DISTLOCK_SHARED_LIBADD)
      fi
    fi
  fi
  AC_MSG_CHECKING([for the hiredis version])
  AC_MSG_RESULT([$DISTLOCK_HIREDIS_VERSION])
  case "$DISTLOCK_HIREDIS_VERSION" in
    0.*) DISTLOCK_TLS=no ;;
  esac
  AC_MSG_CHECKING([whether distlock speaks TLS (rediss://: hiredis >= 1.0 with hiredis_ssl, OpenSSL >= 1.1)])
  AC_MSG_RESULT([$DISTLOCK_TLS])
  if test "$DISTLOCK_TLS" = "yes"; then
    DISTLOCK_TLS_CFLAGS="-DDL_HAVE_TLS=1"
  else
    DISTLOCK_TLS_CFLAGS=
  fi

  dnl The watchdog is a pthread (in libc on glibc >= 2.34; named for older systems).
  PHP_ADD_LIBRARY(pthread, 1, DISTLOCK_SHARED_LIBADD)

  dnl Platform calls (src/core/base/dl_platform.c, the one file that makes
  dnl them): each first choice where the system has it, else a portable path.
  dnl --enable-distlock-fallbacks marks the first choices absent (autoconf's
  dnl cache variables), so a Linux build compiles and runs the paths macOS takes.
  if test "$PHP_DISTLOCK_FALLBACKS" = "yes"; then
    AC_MSG_NOTICE([distlock: forcing the portable fallbacks (no getrandom, ppoll, pthread_condattr_setclock)])
    ac_cv_func_getrandom=no
    ac_cv_func_ppoll=no
    ac_cv_func_pthread_condattr_setclock=no
  fi
  AC_CHECK_HEADERS([sys/random.h])
  AC_CHECK_FUNCS([getrandom getentropy arc4random_buf ppoll])
  distlock_old_LIBS=$LIBS
  LIBS="$LIBS -lpthread"
  AC_CHECK_FUNCS([pthread_condattr_setclock])
  LIBS=$distlock_old_LIBS
  if test "$ac_cv_func_getrandom$ac_cv_func_getentropy$ac_cv_func_arc4random_buf" = "nonono"; then
    AC_MSG_ERROR([distlock needs a kernel random source for its lock tokens: getrandom(), getentropy() or arc4random_buf(); none was found])
  fi
  PHP_SUBST(DISTLOCK_SHARED_LIBADD)
  AC_DEFINE(HAVE_DISTLOCK, 1, [Whether distlock is enabled])

  dnl The core in layers: base (errors, clocks, tokens, URIs, platform calls), transport (the
  dnl connection, hiredis's only user), lease (the lock's scripts, acquire,
  dnl renewal), topology (one server, Redlock, Sentinel, Cluster, the pool).
  DISTLOCK_CORE="src/core/base/dl_err.c src/core/base/dl_clock.c src/core/base/dl_token.c src/core/base/dl_uri.c \
    src/core/base/dl_proc.c src/core/base/dl_wait.c src/core/base/dl_hashslot.c src/core/base/dl_platform.c src/core/base/dl_obs.c \
    src/core/transport/dl_reply.c src/core/transport/dl_conn.c src/core/transport/dl_tls.c src/core/transport/dl_pending.c \
    src/core/lease/dl_key.c src/core/lease/dl_lease.c src/core/lease/dl_script.c src/core/lease/dl_lock.c src/core/lease/dl_acquire.c src/core/lease/dl_deadlock.c \
    src/core/lease/dl_replicas.c src/core/lease/dl_renew.c src/core/lease/dl_rwlock.c src/core/lease/dl_multi.c \
    src/core/topology/dl_fanout.c src/core/topology/dl_quorum.c src/core/topology/dl_target.c src/core/topology/dl_sentinel.c \
    src/core/topology/dl_slots.c src/core/topology/dl_cluster.c src/core/topology/dl_cluster_conn.c src/core/topology/dl_pool.c src/core/topology/dl_watchdog.c"
  DISTLOCK_GLUE="src/php/distlock.c src/php/client.c src/php/registry.c src/php/primitives.c src/php/lock.c src/php/helpers.c \
    src/php/config.c src/php/errors.c src/php/lostwatch.c src/php/observer.c src/php/deadlock.c"

  PHP_NEW_EXTENSION(distlock, $DISTLOCK_GLUE $DISTLOCK_CORE, $ext_shared,, [-DZEND_ENABLE_STATIC_TSRMLS_CACHE=1 $DISTLOCK_TLS_CFLAGS])
  PHP_ADD_BUILD_DIR([$ext_builddir/src/core/base])
  PHP_ADD_BUILD_DIR([$ext_builddir/src/core/transport])
  PHP_ADD_BUILD_DIR([$ext_builddir/src/core/lease])
  PHP_ADD_BUILD_DIR([$ext_builddir/src/core/topology])
  PHP_ADD_BUILD_DIR([$ext_builddir/src/php])
  PHP_ADD_EXTENSION_DEP(distlock, spl)
fi
