--TEST--
Topology options: sentinel, sentinel_username/sentinel_password, min_replicas, replica_timeout are checked; secrets stay out of dumps
--FILE--
<?php
function attempt(callable $f) {
    try { $f(); echo "ok\n"; }
    catch (Throwable $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
$s = 'redis://127.0.0.1:1';
attempt(fn() => new DistLock($s, ['sentinel' => '']));
attempt(fn() => new DistLock($s, ['sentinel' => str_repeat('m', 257)]));
attempt(fn() => new DistLock($s, ['sentinel' => 5]));
attempt(fn() => new DistLock($s, ['min_replicas' => -1]));
attempt(fn() => new DistLock($s, ['min_replicas' => '1']));
attempt(fn() => new DistLock($s, ['min_replicas' => 1001]));
attempt(fn() => new DistLock($s, ['replica_timeout' => 0]));
attempt(fn() => new DistLock([$s, 'redis://127.0.0.1:2', 'redis://127.0.0.1:3'], ['min_replicas' => 1]));
attempt(fn() => new DistLock([$s, 'rediss://127.0.0.1:2'], ['sentinel' => 'm']));
attempt(fn() => new DistLock($s, ['sentinel' => 'm', 'sentinel_username' => 'u']));
attempt(fn() => new DistLock(array_fill(0, 33, $s), ['sentinel' => 'm']));
// Two sentinels are fine (not a Redlock list), and so are the master's own credentials.
$d = new DistLock([$s, 'redis://127.0.0.1:2'], ['sentinel' => 'mymaster', 'password' => 'master-secret',
    'sentinel_password' => 'sentinel-secret', 'database' => 3, 'min_replicas' => 1, 'replica_timeout' => 0.25]);
$dump = print_r($d, true);
preg_match('/\[server\] => (.*)/', $dump, $m);
echo $m[1], "\n";
var_dump(str_contains($dump, 'secret'));
?>
--EXPECT--
ValueError: DistLock::__construct(): Argument #2 ($options) option "sentinel" must be a non-empty string of at most 512 bytes without NUL bytes
ValueError: DistLock::__construct(): Argument #2 ($options) option "sentinel" must be a master name of 1 to 256 bytes
TypeError: DistLock::__construct(): Argument #2 ($options) option "sentinel" must be of type string, int given
ValueError: DistLock::__construct(): Argument #2 ($options) option "min_replicas" must be between 0 and 1000
TypeError: DistLock::__construct(): Argument #2 ($options) option "min_replicas" must be of type int, string given
ValueError: DistLock::__construct(): Argument #2 ($options) option "min_replicas" must be between 0 and 1000
ValueError: DistLock::__construct(): Argument #2 ($options) option "replica_timeout" must be a finite number of seconds greater than 0 and at most 3600
ValueError: DistLock::__construct(): Argument #2 ($options) option "min_replicas" is not available with Redlock (several servers): Redlock's masters are independent: it is their number that survives failures, not replicas
ValueError: DistLock::__construct(): Argument #1 ($servers) must be all redis:// or all rediss:// sentinel URIs
ValueError: DistLock::__construct(): Argument #2 ($options) option "sentinel_username" needs "sentinel_password" too
ValueError: DistLock::__construct(): Argument #1 ($servers) must hold between 1 and 32 sentinel URIs
sentinel service mymaster (master: redis://***@sentinel-master:6379/3) via redis://***@127.0.0.1:1/0, redis://***@127.0.0.1:2/0
bool(false)
