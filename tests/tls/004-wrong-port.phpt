--TEST--
TLS: a TLS client on a plain port and a plain client on the TLS port fail with a ConnectionException within the connect timeout, never a hang
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . "/inc/skipif.inc"; ?>
--FILE--
<?php
require __DIR__ . '/inc/tls.inc';
[$cls, $msg, $s] = tls_try(fn() => (new DistLock('rediss://127.0.0.1:' . tls_plain_port() . '?connect_timeout=0.5', tls_opts()))->tryLock('tls_004'));
echo "TLS on the plain port: $cls: ", preg_replace('/:\d{4,5}\b/', ':PORT', $msg), "\n";
echo "within the connect timeout: ", var_export($s >= 0.4 && $s < 1.0, true), "\n";
[$cls, $msg, $s] = tls_try(fn() => (new DistLock('redis://127.0.0.1:' . tls_port() . '?connect_timeout=0.5'))->tryLock('tls_004'));
echo "plain on the TLS port: $cls: ", preg_replace('/:\d{4,5}\b/', ':PORT', $msg), "\n";
echo "fast: ", var_export($s < 1.0, true), "\n";
var_dump(raw_redis('EXISTS', 'lock:tls_004'));
?>
--EXPECTF--
TLS on the plain port: DistLock\ConnectionException: TLS handshake with Redis at 127.0.0.1:PORT did not complete within the 0.500 s connect timeout (does the server speak TLS on this port?)
within the connect timeout: true
plain on the TLS port: DistLock\ConnectionException: Redis at 127.0.0.1:PORT: connection error %s (if this port expects TLS, use rediss://); the connection was dropped
fast: true
int(0)
