--TEST--
TLS: lock/release, tryLock contention and synchronized() over rediss:// (by IP and by name); the key is in Redis with our token
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . "/inc/skipif.inc"; ?>
--FILE--
<?php
require __DIR__ . '/inc/tls.inc';
raw_redis_del_prefix('tls_001:');
foreach (['127.0.0.1', 'localhost'] as $host) {
    $d = new DistLock(tls_uri('main', $host), tls_opts(['prefix' => 'tls_001:']));
    $l = $d->lock("a-$host", 5);
    echo "$host: held=", var_export(raw_redis('GET', "tls_001:a-$host") === $l->token(), true);
    $other = new DistLock(tls_uri('main', $host), tls_opts(['prefix' => 'tls_001:']));
    echo " contended=", var_export($other->tryLock("a-$host") === null, true);
    echo " released=", var_export($l->release(), true), " gone=", var_export(raw_redis('EXISTS', "tls_001:a-$host") === 0, true);
    echo " sync=", $other->synchronized("s-$host", fn() => 42), "\n";
}
unset($d, $other, $l);
// a TLS connection is really TLS: the server counts it as a client on its TLS port
$d = new DistLock(tls_uri(), tls_opts(['prefix' => 'tls_001:']));
$d->isLocked('x');
$ports = own_tcp_ports_to(tls_port());
echo "connections to the TLS port: ", count($ports), "\n";
?>
--CLEAN--
<?php require __DIR__ . '/inc/tls.inc'; raw_redis_del_prefix('tls_001:'); ?>
--EXPECT--
127.0.0.1: held=true contended=true released=true gone=true sync=42
localhost: held=true contended=true released=true gone=true sync=42
connections to the TLS port: 1
