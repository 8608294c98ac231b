--TEST--
Cluster: locks on names in every master's slots, through one DistLock; owner, status, isLocked, forceRelease, refresh
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_CLUSTER_SEEDS')) die('skip DISTLOCK_TEST_CLUSTER_SEEDS not set'); ?>
--FILE--
<?php
require __DIR__ . '/cluster.inc';
// ttl 60: cl_holders() runs redis-cli some 270 times for the 30 names, over 10 s on a loaded machine
$d = new DistLock([cl_seeds()[0]], ['cluster' => true, 'ttl' => 60, 'defer_release' => false]);
$masters = [];
$held = [];
for ($i = 0; $i < 30; $i++) {
    $l = $d->tryLock("n$i");
    if (!$l) { echo "n$i not acquired\n"; continue; }
    $h = cl_holders("lock:n$i");
    if (count($h) !== 1) echo "n$i held on ", count($h), " masters\n";
    $masters[$h[0] ?? 0] = true;
    $held[] = $l;
}
echo "masters used: ", count($masters), "\n";
$l = $held[0];
var_dump($d->owner('n0') === $l->token(), $d->isLocked('n0'), $d->status('n0')['locked']);
var_dump($l->refresh(20), $l->remainingLifetime() > 19);
foreach ($held as $h) $h->release();
var_dump($d->isLocked('n0'), $d->owner('n0'));
$x = (new DistLock(cl_seeds(), ['cluster' => true]))->tryLock('forced');
var_dump($d->forceRelease('forced'), $x->release());
preg_match('/\[server\] => (.*)/', print_r($d, true), $m);
echo preg_replace('/:\d+/', ':PORT', $m[1]), "\n";
?>
--EXPECT--
masters used: 3
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
bool(false)
NULL
bool(true)
bool(false)
cluster via redis://127.0.0.1:PORT/0
