dnl config.m4 for the distlock extension: finds hiredis (pkg-config
dnl "hiredis >= 0.14", or --with-hiredis=DIR) and builds the core (src/core,
dnl pure C) and the Zend glue (src/php).

PHP_ARG_ENABLE([distlock],
  [whether to enable distlock support],
  [AS_HELP_STRING([--enable-distlock], [Enable distlock (distributed locks on Redis)])],
  [yes])

PHP_ARG_WITH([hiredis],
  [hiredis install prefix],
  [AS_HELP_STRING([[--with-hiredis[=DIR]]], [distlock: hiredis install prefix (default: pkg-config)])],
  [autodetect],
  [no])

if test "$PHP_DISTLOCK" != "no"; then
  if test "$PHP_HIREDIS" = "autodetect" || test "$PHP_HIREDIS" = "yes"; then
    PKG_CHECK_MODULES([HIREDIS], [hiredis >= 0.14])
    PHP_EVAL_INCLINE($HIREDIS_CFLAGS)
    PHP_EVAL_LIBLINE($HIREDIS_LIBS, DISTLOCK_SHARED_LIBADD)
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
  fi

  dnl The watchdog is a pthread (in libc on glibc >= 2.34; named for older systems).
  PHP_ADD_LIBRARY(pthread, 1, DISTLOCK_SHARED_LIBADD)
  PHP_SUBST(DISTLOCK_SHARED_LIBADD)
  AC_DEFINE(HAVE_DISTLOCK, 1, [Whether distlock is enabled])

  DISTLOCK_CORE="src/core/dl_err.c src/core/dl_clock.c src/core/dl_token.c src/core/dl_uri.c \
    src/core/dl_reply.c src/core/dl_key.c src/core/dl_proc.c src/core/dl_wait.c src/core/dl_conn.c src/core/dl_script.c src/core/dl_pending.c src/core/dl_lock.c src/core/dl_acquire.c \
    src/core/dl_renew.c src/core/dl_watchdog.c src/core/dl_pool.c"
  DISTLOCK_GLUE="src/php/distlock.c src/php/client.c src/php/lock.c src/php/helpers.c \
    src/php/config.c src/php/errors.c src/php/lostwatch.c"

  PHP_NEW_EXTENSION(distlock, $DISTLOCK_GLUE $DISTLOCK_CORE, $ext_shared,, [-DZEND_ENABLE_STATIC_TSRMLS_CACHE=1 -D_GNU_SOURCE])
  PHP_ADD_BUILD_DIR([$ext_builddir/src/core])
  PHP_ADD_BUILD_DIR([$ext_builddir/src/php])
  PHP_ADD_EXTENSION_DEP(distlock, spl)
fi
