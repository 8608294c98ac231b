--TEST--
new DistLock(): rediss:// is a ConnectionException about TLS (no TLS in this build: at construction; with TLS: the handshake with a plain server fails); lists of servers; empty list
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
function t(string $label, callable $f) {
    try {
        $f();
        echo "$label: accepted\n";
    } catch (Throwable $e) {
        $m = $e->getMessage();
        echo "$label: ", get_class($e), (str_contains($m, 'TLS') ? ' mentions-TLS' : ''),
            (str_contains($m, '$servers') ? ' $servers' : ''), (str_contains($m, 'hunter2') ? ' LEAKS-PASSWORD' : ''), "\n";
    }
}
// The test server speaks plain TCP: a build without TLS refuses rediss:// when
// constructing, a build with TLS fails the handshake at the first operation.
[$h, $p] = test_host_port();
t('rediss', fn() => (new DistLock("rediss://127.0.0.1:$p?connect_timeout=0.3"))->tryLock('x'));
t('rediss with password', fn() => (new DistLock("rediss://u:hunter2@127.0.0.1:$p/1?timeout=1&connect_timeout=0.3"))->tryLock('x'));
t('rediss in a list', fn() => (new DistLock(["rediss://127.0.0.1:$p?connect_timeout=0.3"]))->tryLock('x'));
t('malformed rediss', fn() => new DistLock('rediss://127.0.0.1:0'));
var_dump(is_subclass_of('DistLock\ConnectionException', 'DistLock\Exception'));

t('empty list', fn() => new DistLock([]));
t('two servers', fn() => new DistLock([test_uri(), test_uri()]));
t('five servers', fn() => new DistLock(array_fill(0, 5, 'redis://127.0.0.1:6379')));
t('two servers, one malformed', fn() => new DistLock(['redis://127.0.0.1:6379', 'nope']));

// a list of exactly one URI works like the string
$d = new DistLock([test_uri()], ['prefix' => 'phpt_008:']);
$l = $d->lock('one');
var_dump(raw_redis('GET', 'phpt_008:one') === $l->token(), $l->release());
$d = new DistLock(['first' => test_uri()], ['prefix' => 'phpt_008:']);
$l = $d->tryLock('keyed');
var_dump($l instanceof DistLock\Lock, $l->release());
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_008:');
?>
--EXPECT--
rediss: DistLock\ConnectionException mentions-TLS
rediss with password: DistLock\ConnectionException mentions-TLS
rediss in a list: DistLock\ConnectionException mentions-TLS
malformed rediss: ValueError $servers
bool(true)
empty list: ValueError $servers
two servers: ValueError $servers
five servers: ValueError $servers
two servers, one malformed: ValueError $servers
bool(true)
bool(true)
bool(true)
bool(true)
