--TEST--
persistent: 20 DistLock lifetimes share one pooled connection; another pool id has its own; a non-persistent instance does not pool; a server-killed pooled connection is replaced without an error
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_209:';
raw_redis_del_prefix($prefix);
$base = lc_own_ports();               // raw_redis()'s own connection
$errors0 = (new DistLock(test_uri()))->stats()['connection_errors'];

// 20 instances, one after the other: one connection, the same server-side client all along
$ports = [];
$ids = [];
$ok = 0;
for ($i = 0; $i < 20; $i++) {
    $dl = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => true]);
    $l = $dl->tryLock('p', 5);
    $ok += (int)($l !== null && $l->release());
    foreach (lc_ext_ports($base) as $p) {
        $ports[$p] = true;
        $ids[lc_client_id($p)] = true;
    }
    unset($l, $dl);
}
echo "cycles ok: $ok, connections: ", count($ports), ", server clients: ", count($ids), "\n";
$pooled = array_key_first($ports);
var_dump(lc_ext_ports($base) === [$pooled]);   // idle in the pool, still open

// a different pool id gets a connection of its own; 'default' keeps its one
$x = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => 'other-pool']);
$x->isLocked('p');
$now = lc_ext_ports($base);
echo "with a second pool: ", count($now), " connections, first one kept: ", var_export(in_array($pooled, $now, true), true), "\n";
unset($x);
$x = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => 'other-pool']);
$x->isLocked('p');
echo "second pool reused: ", var_export(lc_ext_ports($base) == $now, true), "\n";
unset($x);

// two live instances of one pool at once need two connections; both are pooled afterwards
$a = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => true]);
$b = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => true]);
$a->isLocked('p');
$b->isLocked('p');
$withTwo = lc_ext_ports($base);
echo "two live instances: ", count($withTwo), " connections\n";
if (count($withTwo) !== 3) {
    // Once (PHP 8.5, Valkey 9.1, a loaded machine) 7 were seen, 4 of them gone before the
    // next count and unknown to CLIENT LIST by then; not reproduced since. What each one is:
    foreach ($withTwo as $port) {
        $e = client_entry($port);
        echo "  127.0.0.1:$port: ", $e === null ? 'not a client of the server'
            : "id={$e['id']} age={$e['age']} idle={$e['idle']} cmd={$e['cmd']} name={$e['name']} lib-name=" . ($e['lib-name'] ?? '-'), "\n";
    }
}
unset($a, $b);
$a = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => true]);
$b = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => true]);
$a->isLocked('p');
$b->isLocked('p');
echo "again: same connections: ", var_export(lc_ext_ports($base) == $withTwo, true), "\n";
unset($a, $b);

// not persistent: its connection closes with the instance
$n = new DistLock(test_uri(), ['prefix' => $prefix]);
$n->isLocked('p');
echo "plain instance adds one: ", count(lc_ext_ports($base)) - count($withTwo), "\n";
unset($n);
echo "and closes it: ", var_export(lc_ext_ports($base) == $withTwo, true), "\n";

// the server kills every pooled connection of ours (by id: never another test's client)
$killed = 0;
foreach ($withTwo as $p) {
    $killed += (int)raw_redis('CLIENT', 'KILL', 'ID', lc_client_id($p));
}
echo "killed: $killed\n";
// the server's close has reached this side (the sockets left ESTABLISHED): waited for, not guessed
var_dump(lc_wait_until(fn () => array_intersect(lc_own_ports(), $withTwo) === [], 10) !== null);
foreach ([true, 'other-pool'] as $pool) {
    $dl = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => $pool]);
    try {
        $l = $dl->tryLock('p', 5);
        var_dump($l !== null, $l->release(), $dl->isLocked('p'));
    } catch (Throwable $t) {
        echo get_class($t), ': ', $t->getMessage(), "\n";
    }
    unset($l, $dl);
}
$after = lc_ext_ports($base);

// killed while an instance is alive (between two calls): the next call reconnects, no exception
$p0 = lc_ext_ports($base);
$live = new DistLock(test_uri(), ['prefix' => $prefix, 'persistent' => 'live']);
$live->isLocked('p');
$new = array_values(array_diff(lc_ext_ports($base), $p0));
echo "live connection: ", count($new), ", killed: ", raw_redis('CLIENT', 'KILL', 'ID', lc_client_id($new[0])), "\n";
var_dump(lc_wait_until(fn () => !in_array($new[0], lc_own_ports(), true), 10) !== null);
try {
    $l = $live->tryLock('p', 5);
    var_dump($l !== null, $l->release());
} catch (Throwable $t) {
    echo get_class($t), ': ', $t->getMessage(), "\n";
}
unset($l, $live);

echo "replaced: ", count($after), " new, ", count(array_intersect($after, $withTwo)), " old\n";
echo "connection errors: ", (new DistLock(test_uri()))->stats()['connection_errors'] - $errors0, "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_209:');
?>
--EXPECT--
cycles ok: 20, connections: 1, server clients: 1
bool(true)
with a second pool: 2 connections, first one kept: true
second pool reused: true
two live instances: 3 connections
again: same connections: true
plain instance adds one: 1
and closes it: true
killed: 3
bool(true)
bool(true)
bool(true)
bool(false)
bool(true)
bool(true)
bool(false)
live connection: 1, killed: 1
bool(true)
bool(true)
bool(true)
replaced: 2 new, 0 old
connection errors: 0
