--TEST--
TLS: the watchdog renews over TLS (its own connection, with the same TLS settings: the only port given is the TLS port) and with mutual TLS
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . "/inc/skipif.inc"; ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/tls.inc';
raw_redis_del_prefix('tls_006:');
foreach (['main' => tls_opts(), 'mtls' => tls_client_opts()] as $which => $o) {
    $d = new DistLock(tls_uri($which), $o + ['prefix' => 'tls_006:', 'watchdog' => true]);
    $l = $d->lock($which, 0.3);
    usleep(1000000);                       // > 3 leases: only renewals keep it
    $s = $d->stats();
    echo "$which: held=", var_export($l->isAcquired(), true), " renewals>=3=", var_export($s['renewals'] >= 3, true),
        " released=", var_export($l->release(), true), "\n";
}
?>
--CLEAN--
<?php require __DIR__ . '/inc/tls.inc'; raw_redis_del_prefix('tls_006:'); ?>
--EXPECT--
main: held=true renewals>=3=true released=true
mtls: held=true renewals>=3=true released=true
