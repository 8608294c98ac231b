--TEST--
TLS options: type and value errors name the option at construction; unusable files (missing, not a certificate, encrypted key, key of another certificate) are a ConnectionException at connect time naming the option and the path; no passphrase is ever asked for
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . "/inc/skipif.inc"; ?>
--FILE--
<?php
require __DIR__ . '/inc/tls.inc';
function show(string $label, callable $f) {
    [$cls, $msg] = tls_try($f);
    $msg = is_string($msg) ? str_replace(tls_env('DISTLOCK_TEST_TLS_CERTS'), 'CERTS', preg_replace('/:\d{4,5}\b/', ':PORT', $msg)) : var_export($msg, true);
    echo "$label: $cls: $msg\n";
}
$use = fn(array $o) => fn() => (new DistLock(tls_uri(), $o))->tryLock('tls_005') !== null;
// construction
show('tls_ca on redis://', fn() => new DistLock('redis://127.0.0.1:' . tls_plain_port(), ['tls_ca' => tls_cert('ca.crt')]));
show('tls_verify_peer on unix://', fn() => new DistLock('unix:///tmp/x.sock', ['tls_verify_peer' => false]));
show('tls_ca type', fn() => new DistLock(tls_uri(), ['tls_ca' => 1]));
show('tls_ca empty', fn() => new DistLock(tls_uri(), ['tls_ca' => '']));
show('tls_key NUL', fn() => new DistLock(tls_uri(), ['tls_cert' => 'a', 'tls_key' => "a\0b"]));
show('tls_verify_peer type', fn() => new DistLock(tls_uri(), ['tls_verify_peer' => 'no']));
show('tls_server_name bad', fn() => new DistLock(tls_uri(), ['tls_server_name' => 'a b']));
show('tls_cert alone', fn() => new DistLock(tls_uri(), ['tls_cert' => tls_cert('client.crt')]));
show('lazy: a missing file is not read yet', fn() => new DistLock(tls_uri(), ['tls_ca' => '/nonexistent/ca.pem']) instanceof DistLock);
// connect time
show('missing tls_ca', $use(['tls_ca' => '/nonexistent/ca.pem']));
show('tls_ca not a certificate', $use(['tls_ca' => tls_cert('plain.txt')]));
show('tls_ca_path not a directory', $use(['tls_ca_path' => tls_cert('ca.crt')]));
show('tls_ca_path directory', $use(['tls_ca_path' => tls_env('DISTLOCK_TEST_TLS_CERTS'), 'tls_ca' => tls_cert('ca.crt')]));
show('encrypted tls_key', $use(tls_opts(['tls_cert' => tls_cert('server.crt'), 'tls_key' => tls_cert('encrypted.key')])));
show('tls_key of another certificate', $use(tls_opts(['tls_cert' => tls_cert('client.crt'), 'tls_key' => tls_cert('server.key')])));
show('tls_cert not a certificate', $use(tls_opts(['tls_cert' => tls_cert('plain.txt'), 'tls_key' => tls_cert('client.key')])));
raw_redis('DEL', 'lock:tls_005');
?>
--EXPECT--
tls_ca on redis://: ValueError: DistLock::__construct(): Argument #2 ($options) option "tls_ca" needs a rediss:// server URI
tls_verify_peer on unix://: ValueError: DistLock::__construct(): Argument #2 ($options) option "tls_verify_peer" needs a rediss:// server URI
tls_ca type: TypeError: DistLock::__construct(): Argument #2 ($options) option "tls_ca" must be of type string, int given
tls_ca empty: ValueError: DistLock::__construct(): Argument #2 ($options) option "tls_ca" must be a non-empty path of at most 4096 bytes without NUL bytes
tls_key NUL: ValueError: DistLock::__construct(): Argument #2 ($options) option "tls_key" must be a non-empty path of at most 4096 bytes without NUL bytes
tls_verify_peer type: TypeError: DistLock::__construct(): Argument #2 ($options) option "tls_verify_peer" must be of type bool, string given
tls_server_name bad: ValueError: DistLock::__construct(): Argument #2 ($options) option "tls_server_name" must be a host name or IP address of at most 253 bytes
tls_cert alone: ValueError: DistLock::__construct(): Argument #2 ($options) options "tls_cert" and "tls_key" must be given together
lazy: a missing file is not read yet: ok: true
missing tls_ca: DistLock\ConnectionException: TLS setup for Redis at 127.0.0.1:PORT failed: cannot use the tls_ca file /nonexistent/ca.pem: No such file or directory
tls_ca not a certificate: DistLock\ConnectionException: TLS setup for Redis at 127.0.0.1:PORT failed: cannot use the tls_ca file CERTS/plain.txt: no certificate or crl found
tls_ca_path not a directory: DistLock\ConnectionException: TLS setup for Redis at 127.0.0.1:PORT failed: cannot use the tls_ca_path directory CERTS/ca.crt: not a directory
tls_ca_path directory: ok: true
encrypted tls_key: DistLock\ConnectionException: TLS setup for Redis at 127.0.0.1:PORT failed: cannot use the tls_key file CERTS/encrypted.key: it is protected by a passphrase, which is not supported
tls_key of another certificate: DistLock\ConnectionException: TLS setup for Redis at 127.0.0.1:PORT failed: cannot use the tls_key file CERTS/server.key: it is not the key of the tls_cert certificate
tls_cert not a certificate: DistLock\ConnectionException: TLS setup for Redis at 127.0.0.1:PORT failed: cannot use the tls_cert file CERTS/plain.txt: no start line
