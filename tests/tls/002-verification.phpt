--TEST--
TLS: the certificate and the host name are verified by default: wrong CA, system trust store, wrong host name, expired certificate fail with a ConnectionException saying what and where; tls_verify_peer=false is the explicit way out
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . "/inc/skipif.inc"; ?>
--FILE--
<?php
require __DIR__ . '/inc/tls.inc';
function show(string $label, callable $f) {
    [$cls, $msg, $s] = tls_try($f);
    echo "$label: $cls", is_string($msg) ? ": " . preg_replace('/:\d{4,5}\b/', ':PORT', $msg) : '', ($s < 1.0 ? '' : ' SLOW'), "\n";
}
$lock = fn(string $uri, array $o) => fn() => (new DistLock($uri, $o))->tryLock('tls_002') !== null;
show('right CA', $lock(tls_uri(), tls_opts()));
show('other CA', $lock(tls_uri(), ['tls_ca' => tls_cert('other-ca.crt')]));
show('system trust store', $lock(tls_uri(), []));
show('server signed by another CA', $lock(tls_uri(), ['tls_ca' => tls_cert('other-ca.crt'), 'tls_server_name' => 'localhost']));
show('wrong host name', $lock(tls_uri(), tls_opts(['tls_server_name' => 'wrong.example'])));
show('wrong IP', $lock(tls_uri(), tls_opts(['tls_server_name' => '10.1.2.3'])));
show('right name given', $lock(tls_uri(), tls_opts(['tls_server_name' => 'localhost'])));
show('expired', $lock(tls_uri('expired'), tls_opts()));
show('expired, no verification', $lock(tls_uri('expired'), ['tls_verify_peer' => false]));
show('wrong name, no verification', $lock(tls_uri(), ['tls_verify_peer' => false, 'tls_server_name' => 'wrong.example']));
show('verify explicitly on', $lock(tls_uri(), tls_opts(['tls_verify_peer' => true])));
raw_redis('DEL', 'lock:tls_002');
?>
--EXPECT--
right CA: ok
other CA: DistLock\ConnectionException: TLS handshake with Redis at 127.0.0.1:PORT failed: the server's certificate was not accepted: self-signed certificate in certificate chain
system trust store: DistLock\ConnectionException: TLS handshake with Redis at 127.0.0.1:PORT failed: the server's certificate was not accepted: self-signed certificate in certificate chain
server signed by another CA: DistLock\ConnectionException: TLS handshake with Redis at 127.0.0.1:PORT failed: the server's certificate was not accepted: self-signed certificate in certificate chain
wrong host name: DistLock\ConnectionException: TLS handshake with Redis at 127.0.0.1:PORT failed: the server's certificate was not accepted: hostname mismatch
wrong IP: DistLock\ConnectionException: TLS handshake with Redis at 127.0.0.1:PORT failed: the server's certificate was not accepted: IP address mismatch
right name given: ok
expired: DistLock\ConnectionException: TLS handshake with Redis at 127.0.0.1:PORT failed: the server's certificate was not accepted: certificate has expired
expired, no verification: ok
wrong name, no verification: ok
verify explicitly on: ok
