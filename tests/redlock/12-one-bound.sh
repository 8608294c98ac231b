#!/bin/sh

export SHELL='/bin/bash'
export IS_SANDBOX='yes'
export PYTHONUNBUFFERED='1'
export TF_CLI_CONFIG_FILE='/root/.terraformrc'
export NODE_EXTRA_CA_CERTS='/etc/ssl/certs/ca-certificates.crt'
export OPENBLAS_L2_SIZE='512'
export CONTAINER_NAME='plain-demon-gdzzbd-wssrmn'
export PWD='/work/wt/timeouts'
export DISTLOCK_TEST_REDLOCK='redis://127.0.0.1:16401,redis://127.0.0.1:16402,redis://127.0.0.1:16403,redis://127.0.0.1:16404,redis://127.0.0.1:16405'
export HOME='/root'
export GIT_SSL_CAINFO='/etc/ssl/certs/ca-certificates.crt'
export LANG='C.UTF-8'
export CLOUDSDK_CORE_CUSTOM_CA_CERTS_FILE='/etc/ssl/certs/ca-certificates.crt'
export DISTLOCK_TEST_REDLOCK_PIDS='25871,25884,25912,25932,25952'
export SSL_CERT_DIR='/etc/ssl/certs'
export NIX_SSL_CERT_FILE='/etc/ssl/certs/ca-certificates.crt'
export TOX_OVERRIDE='testenv.passenv+=#,OPENBLAS_*;env_run_base.passenv+=OPENBLAS_*;tool.tox.env_run_base.passenv+=OPENBLAS_*'
export PIP_DEFAULT_TIMEOUT='180'
export TOX_TESTENV_PASSENV='OPENBLAS_*'
export TERM='xterm'
export RUSTUP_AUTO_INSTALL='0'
export OPENBLAS_CORETYPE='Haswell'
export CURL_CA_BUNDLE='/etc/ssl/certs/ca-certificates.crt'
export PIP_DISABLE_PIP_VERSION_CHECK='1'
export SHLVL='1'
export PYTHONDONTWRITEBYTECODE='1'
export CLOUD_SDK_VERSION='528.0.0'
export SSL_CERT_FILE='/etc/ssl/certs/ca-certificates.crt'
export NVPL_BLAS_DEBUG_CPU_TYPE='1'
export PYENV_ROOT='/root/.pyenv'
export PIP_CERT='/etc/ssl/certs/ca-certificates.crt'
export REQUESTS_CA_BUNDLE='/etc/ssl/certs/ca-certificates.crt'
export AWS_CA_BUNDLE='/etc/ssl/certs/ca-certificates.crt'
export PIP_FIND_LINKS='/opt/wheels'
export PATH='/root/.cargo/bin:/root/.cargo/bin:/root/.pyenv/plugins/pyenv-virtualenv/shims:/root/.pyenv/shims:/root/.pyenv/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin'
export HTTPLIB2_CA_CERTS='/etc/ssl/certs/ca-certificates.crt'
export RUST_BACKTRACE='1'
export GRPC_DEFAULT_SSL_ROOTS_FILE_PATH='/etc/ssl/certs/ca-certificates.crt'
export DEBIAN_FRONTEND='noninteractive'
export OLDPWD='/work/main'
export _='/usr/bin/php'
export TEMP='/tmp'
export NO_INTERACTION='1'
export TEST_PHP_EXECUTABLE='/usr/bin/php8.2'
export TEST_PHP_CGI_EXECUTABLE=''
export TEST_PHPDBG_EXECUTABLE=''
export REDIRECT_STATUS='1'
export QUERY_STRING=''
export PATH_TRANSLATED='/work/wt/timeouts/tests/redlock/12-one-bound.php'
export SCRIPT_FILENAME='/work/wt/timeouts/tests/redlock/12-one-bound.php'
export REQUEST_METHOD='GET'
export CONTENT_TYPE=''
export CONTENT_LENGTH=''
export TZ=''
export TEST_PHP_EXTRA_ARGS=' -n  -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/tmp/tb-old/modules/distlock.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "max_execution_time=0"'
export HTTP_COOKIE=''

case "$1" in
"gdb")
    gdb --args /usr/bin/php8.2  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/tmp/tb-old/modules/distlock.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "max_execution_time=0" -f "/work/wt/timeouts/tests/redlock/12-one-bound.php"  2>&1
    ;;
"lldb")
    lldb -- /usr/bin/php8.2  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/tmp/tb-old/modules/distlock.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "max_execution_time=0" -f "/work/wt/timeouts/tests/redlock/12-one-bound.php"  2>&1
    ;;
"valgrind")
    USE_ZEND_ALLOC=0 valgrind $2 /usr/bin/php8.2  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/tmp/tb-old/modules/distlock.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "max_execution_time=0" -f "/work/wt/timeouts/tests/redlock/12-one-bound.php"  2>&1
    ;;
"rr")
    rr record $2 /usr/bin/php8.2  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/tmp/tb-old/modules/distlock.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "max_execution_time=0" -f "/work/wt/timeouts/tests/redlock/12-one-bound.php"  2>&1
    ;;
*)
    /usr/bin/php8.2  -n   -d "output_handler=" -d "open_basedir=" -d "disable_functions=" -d "output_buffering=Off" -d "error_reporting=32767" -d "display_errors=1" -d "display_startup_errors=1" -d "log_errors=0" -d "html_errors=0" -d "track_errors=0" -d "report_memleaks=1" -d "report_zend_debug=0" -d "docref_root=" -d "docref_ext=.html" -d "error_prepend_string=" -d "error_append_string=" -d "auto_prepend_file=" -d "auto_append_file=" -d "ignore_repeated_errors=0" -d "precision=14" -d "serialize_precision=-1" -d "memory_limit=128M" -d "opcache.fast_shutdown=0" -d "opcache.file_update_protection=0" -d "opcache.revalidate_freq=0" -d "opcache.jit_hot_loop=1" -d "opcache.jit_hot_func=1" -d "opcache.jit_hot_return=1" -d "opcache.jit_hot_side_exit=1" -d "zend.assertions=1" -d "zend.exception_ignore_args=0" -d "zend.exception_string_param_max_len=15" -d "short_open_tag=0" -d "extension=/tmp/tb-old/modules/distlock.so" -d "session.auto_start=0" -d "zlib.output_compression=Off" -d "max_execution_time=0" -f "/work/wt/timeouts/tests/redlock/12-one-bound.php"  2>&1
    ;;
esac