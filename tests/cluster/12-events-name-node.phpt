--TEST--
Cluster: every event names the master that holds its lease's slot (issue 37.4), not the seed: acquire, refresh, release, releaseAll() of leases on three masters, endRequest(), a destructor's release, a deferred release told at the next call
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
$d = new DistLock([cl_seeds()[0]], ['cluster' => true, 'ttl' => 60, 'defer_release' => false, 'prefix' => 'ev12:']);
// Three names whose slots three different masters hold (found by asking every node for the key).
$port = [];
for ($i = 0; count($port) < 3 && $i < 60; $i++) {
    $l = $d->tryLock("n$i");
    $h = cl_holders("ev12:n$i");
    if (count($h) === 1 && !in_array($h[0], $port, true)) $port["n$i"] = $h[0];
    $l->release();
}
echo "names on distinct masters: ", count($port), "\n";
$names = array_keys($port);

$events = [];
DistLock::addObserver(function (DistLock\Event $e) use (&$events) { $events[] = $e; });
function show(): void {
    global $events, $port;
    foreach ($events as $e) {
        $i = array_search($e->name, array_keys($port), true);
        printf("  %s name#%s %s %s%s\n", $e->operation, $i === false ? $e->name : $i, $e->outcome,
            $e->server === "127.0.0.1:" . ($port[$e->name] ?? -1) ? 'its master' : var_export($e->server, true),
            $e->implicit ? ' implicit' : '');
    }
    $events = [];
}

echo "lock() each, refresh() one\n";
$held = array_map(fn($n) => $d->lock($n), $names);
$held[1]->refresh(30);
show();
echo "releaseAll(): ", $d->releaseAll($held), "\n";
show();

echo "endRequest(): ";
$keep = array_map(fn($n) => $d->lock($n), $names);
$events = [];
echo DistLock::endRequest(), "\n";
show();
unset($keep);

echo "a destructor's release\n";
$x = $d->lock($names[2]);
$events = [];
unset($x);
$d->isLocked($names[1]);    // a destructor's event is told at the next call
show();

echo "a deferred release, told at the next call\n";
$deferring = new DistLock([cl_seeds()[0]], ['cluster' => true, 'ttl' => 60, 'prefix' => 'ev12:']);
$y = $deferring->lock($names[0]);
$events = [];
unset($y);
$deferring->isLocked($names[1]);
show();
?>
--CLEAN--
<?php
require __DIR__ . '/cluster.inc';
$d = new DistLock(cl_seeds(), ['cluster' => true, 'prefix' => 'ev12:']);
for ($i = 0; $i < 60; $i++) $d->forceRelease("n$i");
?>
--EXPECT--
names on distinct masters: 3
lock() each, refresh() one
  acquire name#0 acquired its master
  acquire name#1 acquired its master
  acquire name#2 acquired its master
  refresh name#1 refreshed its master
releaseAll(): 3
  release name#0 released its master
  release name#1 released its master
  release name#2 released its master
endRequest(): 3
  release name#0 released its master implicit
  release name#1 released its master implicit
  release name#2 released its master implicit
a destructor's release
  release name#2 released its master implicit
a deferred release, told at the next call
  release name#0 released its master implicit
