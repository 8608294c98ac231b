--TEST--
Redlock: server lists and options that have no sound meaning over independent masters are ValueErrors; QuorumException is a ConnectionException
--FILE--
<?php
$u = ['redis://127.0.0.1:1', 'redis://127.0.0.1:2', 'redis://127.0.0.1:3'];
function attempt(callable $f) {
    try { $f(); echo "no error\n"; }
    catch (Throwable $e) { echo get_class($e), ': ', $e->getMessage(), "\n"; }
}
attempt(fn() => new DistLock([$u[0], $u[1]]));
attempt(fn() => new DistLock(array_map(fn($i) => "redis://127.0.0.1:" . (1000 + $i), range(1, 65))));
attempt(fn() => new DistLock([$u[0], $u[1], 'redis://127.0.0.1:1/3']));
attempt(fn() => new DistLock([$u[0], $u[1], 42]));
attempt(fn() => new DistLock([$u[0], $u[1], 'http://x']));
attempt(fn() => new DistLock($u, ['fencing' => true]));
attempt(fn() => new DistLock($u, ['fair' => true]));
attempt(fn() => new DistLock([$u[0], $u[1], 'redis://127.0.0.1:3'], ['username' => 'u']));
// Each URI keeps its own credentials and database; the options fill in the rest.
attempt(fn() => new DistLock(['redis://:pw1@127.0.0.1:1/1', 'redis://127.0.0.1:2', 'redis://u:pw3@127.0.0.1:3'], ['password' => 'opt', 'database' => 2]));
$d = new DistLock(['redis://:pw1@127.0.0.1:1/1', 'redis://127.0.0.1:2', 'redis://u:pw3@127.0.0.1:3'], ['password' => 'opt', 'database' => 2]);
preg_match('/\[server\] => (.*)/', print_r($d, true), $m);
echo $m[1], "\n";
var_dump(str_contains(print_r($d, true), 'pw'), str_contains(print_r($d, true), 'opt'));
var_dump(is_subclass_of(DistLock\QuorumException::class, DistLock\ConnectionException::class));
var_dump(is_subclass_of(DistLock\ReplicationException::class, DistLock\ConnectionException::class));
?>
--EXPECTF--
ValueError: DistLock::__construct(): Argument #1 ($servers) must hold one URI, or between 3 and 64 for Redlock (two masters survive no failure: a quorum of 2 needs both)
ValueError: DistLock::__construct(): Argument #1 ($servers) must hold one URI, or between 3 and 64 for Redlock (two masters survive no failure: a quorum of 2 needs both)
ValueError: DistLock::__construct(): Argument #1 ($servers) must not name a server twice: URIs #1 and #3 are both 127.0.0.1:1
TypeError: DistLock::__construct(): Argument #1 ($servers) must contain only strings, int given
ValueError: DistLock::__construct(): Argument #1 ($servers) must hold valid server URIs: URI #3: %s
ValueError: DistLock::__construct(): Argument #2 ($options) option "fencing" is not available with Redlock (several servers): independent masters share no counter, so their grants have no single order
ValueError: DistLock::__construct(): Argument #2 ($options) option "fair" is not available with Redlock (several servers): independent masters share no queue to hand the lock over in
ValueError: DistLock::__construct(): Argument #2 ($options) option "username" needs a password too
no error
redis://***@127.0.0.1:1/1, redis://***@127.0.0.1:2/2, redis://***@127.0.0.1:3/2
bool(false)
bool(false)
bool(true)
bool(true)
