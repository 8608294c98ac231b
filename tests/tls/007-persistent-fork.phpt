--TEST--
TLS: persistent connections are reused across instances (one handshake), are separate pool entries for other TLS settings, and after fork() the child makes its own TLS connection without writing to the parent's
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . "/inc/skipif.inc"; ?>
<?php if (!function_exists('pcntl_fork')) die('skip pcntl not available'); ?>
--INI--
max_execution_time=0
--FILE--
<?php
require __DIR__ . '/inc/tls.inc';
$prefix = 'tls_007:';
raw_redis_del_prefix($prefix);
$o = tls_opts(['prefix' => $prefix, 'persistent' => true]);
$d = new DistLock(tls_uri(), $o);
$d->isLocked('x');
$p1 = own_tcp_ports_to(tls_port());
unset($d);
$d = new DistLock(tls_uri(), $o);         // a new "request": the pooled TLS connection
$d->isLocked('x');
echo "reused: ", var_export(own_tcp_ports_to(tls_port()) === $p1 && count($p1) === 1, true), "\n";
unset($d);
// other TLS settings: another pool entry (a second connection)
$e = new DistLock(tls_uri(), ['prefix' => $prefix, 'persistent' => true, 'tls_verify_peer' => false]);
$e->isLocked('x');
echo "other settings, other connection: ", count(own_tcp_ports_to(tls_port())), "\n";
unset($e);

$d = new DistLock(tls_uri(), $o);
$held = $d->lock('parent', 30);
$before = own_tcp_ports_to(tls_port());
$entry0 = client_entry($p1[0]);
$pid = fork_child(function () use ($d, $prefix, $o) {
    $r = [];
    $r[] = 'inherited=' . (int)$d->isLocked('parent');
    $c = new DistLock(tls_uri(), $o);
    $l = $c->tryLock('child', 5);
    $r[] = 'child_lock=' . (int)($l !== null && $l->release());
    raw_redis('SET', $prefix . 'result', implode(' ', $r));
    return 0;
});
echo wait_child($pid), "\n";
echo raw_redis('GET', $prefix . 'result'), "\n";
$entry1 = client_entry($p1[0]);
echo "parent's connection untouched: ", var_export($entry0['id'] === $entry1['id'] && $entry0['cmd'] === $entry1['cmd'], true), "\n";
$errors = 0;
for ($k = 0; $k < 200; $k++) {
    $l = $d->tryLock("after:$k", 5);
    $errors += (int)!($l !== null && $l->release());
}
echo "parent after fork: $errors errors, same connections: ", var_export(own_tcp_ports_to(tls_port()) === $before && in_array($p1[0], $before, true), true), "\n";
var_dump($held->release());
?>
--CLEAN--
<?php require __DIR__ . '/inc/tls.inc'; raw_redis_del_prefix('tls_007:'); ?>
--EXPECT--
reused: true
other settings, other connection: 2
exit=0
inherited=1 child_lock=1
parent's connection untouched: true
parent after fork: 0 errors, same connections: true
bool(true)
