--TEST--
Observer: every event names the server that answered it (issue 37.4): releaseAll() of several leases (each event, not only the first), lockAll() and its members' releases, endRequest() and the request-end sweep (in a child PHP), a destructor's batch; null only when no server answered (an inner handle's release, a lost handle)
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
require __DIR__ . '/inc/proc.inc';
raw_redis_del_prefix('phpt_506:');
[$host, $port] = test_host_port();
$server = (str_contains($host, ':') ? "[$host]" : $host) . ":$port";
$events = [];
DistLock::addObserver(function (DistLock\Event $e) use (&$events) { $events[] = $e; });
function show(): void {
    global $events, $server;
    foreach ($events as $e) {
        printf("  %s %s %s %s rt=%s server=%s\n", $e->operation, $e->kind, $e->name, $e->outcome,
            $e->roundTrips > 0 ? '>0' : '0', $e->server === $server ? 'ok' : var_export($e->server, true));
    }
    $events = [];
}
$d = new DistLock(test_uri(), ['prefix' => 'phpt_506:', 'defer_release' => false]);

echo "releaseAll of three leases of three kinds\n";
$a = $d->lock('a', 10);
$b = $d->lockShared('b', 10);
$c = $d->acquirePermits('c', 2, 1, 10);
$events = [];
echo $d->releaseAll([$a, $b, $c]), "\n";
show();

echo "releaseAll: an inner handle (no server asked) and a lost lease\n";
$a = $d->lock('a', 10);
$inner = $d->lock('a', 10);
$x = $d->lock('x', 10);
raw_redis('DEL', 'phpt_506:x');
$events = [];
echo $d->releaseAll([$inner, $x, $a]), "\n";
show();

echo "lockAll and its members' releases\n";
$all = $d->lockAll(['m1', 'm2', 'm3'], 10);
echo $d->releaseAll($all), "\n";
show();
$all = $d->lockAll(['m1', 'm2'], 10);
$events = [];
unset($all);                 // a destructor each (not deferred)
$d->status('m1');
show();

echo "endRequest() of several leases\n";
$keep = [$d->lock('e1', 10), $d->lock('e2', 10), $d->lockShared('e3', 10)];
$events = [];
echo DistLock::endRequest(), "\n";
show();
unset($keep);

echo "the request-end sweep (a child PHP)\n";
putenv('PHPT506_URI=' . test_uri());
putenv("PHPT506_HOST=$host");
putenv("PHPT506_PORT=$port");
[$rc, $out] = run_php_child(<<<'PHP'
<?php
[$host, $port] = [getenv('PHPT506_HOST'), getenv('PHPT506_PORT')];
$server = (str_contains($host, ':') ? "[$host]" : $host) . ":$port";
DistLock::addObserver(function (DistLock\Event $e) use ($server) {
    if ($e->operation === 'release') echo "  release $e->name implicit=", (int)$e->implicit, " server=", $e->server === $server ? 'ok' : var_export($e->server, true), "\n";
});
$d = new DistLock(getenv('PHPT506_URI'), ['prefix' => 'phpt_506:']);
$GLOBALS['keep'] = [$d->lock('r1', 10), $d->lock('r2', 10), $d->lockShared('r3', 10)];
echo "  held 3\n";
PHP, (is_valgrind() ? 300.0 : 60.0) * test_slowdown());   // under valgrind the child runs in it too
echo $out;
var_dump(raw_redis('KEYS', 'phpt_506:r*'));
raw_redis_del_prefix('phpt_506:');
?>
--EXPECT--
releaseAll of three leases of three kinds
3
  release mutex a released rt=>0 server=ok
  release shared b released rt=0 server=ok
  release permits c released rt=0 server=ok
releaseAll: an inner handle (no server asked) and a lost lease
2
  release mutex a released rt=0 server=NULL
  release mutex x lost rt=>0 server=ok
  release mutex a released rt=0 server=ok
lockAll and its members' releases
3
  acquire multi m1 acquired rt=>0 server=ok
  release mutex m1 released rt=>0 server=ok
  release mutex m2 released rt=0 server=ok
  release mutex m3 released rt=0 server=ok
  release mutex m1 released rt=>0 server=ok
  release mutex m2 released rt=>0 server=ok
endRequest() of several leases
3
  release mutex e1 released rt=>0 server=ok
  release mutex e2 released rt=0 server=ok
  release shared e3 released rt=0 server=ok
the request-end sweep (a child PHP)
  held 3
  release r1 implicit=1 server=ok
  release r2 implicit=1 server=ok
  release r3 implicit=1 server=ok
array(0) {
}
