--TEST--
TLS: mutual TLS (tls-auth-clients yes): with the client certificate it works; without, a ConnectionException that says the server wants one
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . "/inc/skipif.inc"; ?>
--FILE--
<?php
require __DIR__ . '/inc/tls.inc';
$d = new DistLock(tls_uri('mtls'), tls_client_opts(['prefix' => 'tls_003:']));
$l = $d->lock('m', 5);
var_dump($l->isAcquired(), $l->release());
[$cls, $msg] = tls_try(fn() => (new DistLock(tls_uri('mtls'), tls_opts()))->tryLock('m'));
// the server's alert "certificate required" is read when it arrives before the server's reset; the
// reset may also meet the first write (TLS 1.3: the handshake ends before the server checks the certificate)
echo $cls, ': ', preg_replace('/:\d{4,5}\b/', ':PORT', $msg), "\n";
// with a password: the refusal comes at AUTH, and the password is not in the message
[$cls, $msg] = tls_try(fn() => (new DistLock(str_replace('rediss://', 'rediss://:hunter2@', tls_uri('mtls')), tls_opts()))->tryLock('m'));
echo $cls, ' ', preg_replace('/:\d{4,5}\b/', ':PORT', $msg), str_contains($msg, 'hunter2') ? ' LEAK' : '', "\n";
?>
--EXPECTF--
bool(true)
bool(true)
DistLock\ConnectionException: Redis at 127.0.0.1:PORT: connection error while %s: %s; the connection was dropped
DistLock\ConnectionException Redis at 127.0.0.1:PORT: connection error during AUTH: %s; the connection was dropped
