--TEST--
synchronized(): bad ttl and wait are ValueError naming the right argument (#3 $ttl, #4 $wait); the callback never runs
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
$d = new DistLock(test_uri(), ['prefix' => 'phpt_037:']);
$ran = 0;
foreach ([[0.0, null], [-1.0, null], [INF, null], [NAN, null], [1e9 + 1, null], [1, -0.001], [1, INF], [1, NAN], [1, 1e9 + 1]] as [$ttl, $wait]) {
    try {
        $d->synchronized('a', function () use (&$ran) { $ran++; }, $ttl, $wait);
        echo "accepted\n";
    } catch (ValueError $e) {
        echo $e->getMessage(), "\n";
    }
}
var_dump($ran, raw_redis('EXISTS', 'phpt_037:a'));
?>
--EXPECT--
DistLock::synchronized(): Argument #3 ($ttl) must be a finite number of seconds greater than 0 and at most 1000000000
DistLock::synchronized(): Argument #3 ($ttl) must be a finite number of seconds greater than 0 and at most 1000000000
DistLock::synchronized(): Argument #3 ($ttl) must be a finite number of seconds greater than 0 and at most 1000000000
DistLock::synchronized(): Argument #3 ($ttl) must be a finite number of seconds greater than 0 and at most 1000000000
DistLock::synchronized(): Argument #3 ($ttl) must be a finite number of seconds greater than 0 and at most 1000000000
DistLock::synchronized(): Argument #4 ($wait) must be a finite number of seconds greater than or equal to 0 and at most 1000000000
DistLock::synchronized(): Argument #4 ($wait) must be a finite number of seconds greater than or equal to 0 and at most 1000000000
DistLock::synchronized(): Argument #4 ($wait) must be a finite number of seconds greater than or equal to 0 and at most 1000000000
DistLock::synchronized(): Argument #4 ($wait) must be a finite number of seconds greater than or equal to 0 and at most 1000000000
int(0)
int(0)
