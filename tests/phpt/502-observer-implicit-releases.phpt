--TEST--
Observer: implicit releases (destruction, deferred or not; endRequest(); request end, normal and after a fatal error, in a child PHP) are told after the fact with implicit=true; observers outlive endRequest()
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
require __DIR__ . '/inc/proc.inc';
raw_redis_del_prefix('phpt_502:');
[$host, $port] = test_host_port();
$server = (str_contains($host, ':') ? "[$host]" : $host) . ":$port";
$events = [];
DistLock::addObserver(function (DistLock\Event $e) use (&$events) { $events[] = $e; });
function show(): void {
    global $events, $server;
    foreach ($events as $e) {
        printf("  %s %s %s implicit=%d rt=%s server=%s held=%s\n", $e->operation, $e->name, $e->outcome,
            (int)$e->implicit, $e->roundTrips > 0 ? '>0' : '0', $e->server === $server ? 'ok' : var_export($e->server, true),
            $e->heldNs === null ? 'null' : ($e->heldNs > 0 ? '>0' : 'BAD'));
    }
    $events = [];
}
$d = new DistLock(test_uri(), ['prefix' => 'phpt_502:']);

echo "destruction, deferred (the default): written, told when its reply is read\n";
$l = $d->lock('a', 5);
$events = [];
$t0 = hrtime(true);
unset($l);
echo "  told at once: ", count($events), "\n";
usleep(20000);
var_dump($d->isLocked('a'));   // reads the reply, in the same round trip
$t1 = hrtime(true);
[$e] = $events;
echo "  startNs when written: ", var_export($e->startNs >= $t0 && $e->startNs <= $t1, true), "\n";
echo "  callNs until the reply was read (>= 20 ms): ", var_export($e->callNs >= 20000000 && $e->startNs + $e->callNs <= $t1, true), "\n";
show();

echo "destruction, not deferred: confirmed at once, told at the next call\n";
$nd = new DistLock(test_uri(), ['prefix' => 'phpt_502:', 'defer_release' => false]);
$l = $nd->lock('b', 5);
$events = [];
unset($l);
echo "  key gone: ", var_export(raw_redis('EXISTS', 'phpt_502:b') === 0, true), ", told: ", count($events), "\n";
var_dump($nd->isLocked('b'));
show();

echo "endRequest(): every lease still held, in one round trip\n";
$k1 = $d->lock('k1', 5);
$k2 = $d->lock('k2', 5);
$events = [];
var_dump(DistLock::endRequest());
show();
echo "observers kept: ";
$d->tryLock('after')->release();
echo count($events), " events\n";
$events = [];
unset($k1, $k2);
echo "  inert handles tell nothing: ", count($events), "\n";

echo "request end (child PHP): told to the observer at request end\n";
$log = tempnam(sys_get_temp_dir(), 'phpt_502_');
foreach (['normal end' => '', 'fatal error' => '$n = null; $n->boom();', 'exit in a function' => 'function f() { exit(3); } f();'] as $label => $tail) {
    file_put_contents($log, '');
    $uri = var_export(test_uri(), true);
    [$rc, $out] = run_php_child(<<<PHP
<?php
\$log = '$log';
DistLock::addObserver(function (DistLock\Event \$e) use (\$log) {
    file_put_contents(\$log, sprintf("%s %s %s implicit=%d\\n", \$e->operation, \$e->name, \$e->outcome, (int)\$e->implicit), FILE_APPEND);
});
DistLock::addObserver(function (DistLock\Event \$e) { throw new Exception('swallowed at request end too'); });
\$d = new DistLock($uri, ['prefix' => 'phpt_502:']);
\$kept = \$d->lock('r1', 5);
\$GLOBALS['also'] = \$d->lock('r2', 5);
$tail
PHP);
    echo "  $label: exit $rc", str_contains($out, 'swallowed') ? ' (observer exception leaked!)' : '', "\n";
    $lines = file($log, FILE_IGNORE_NEW_LINES);
    sort($lines);
    foreach ($lines as $line) echo "    $line\n";
    echo "    keys left: ", raw_redis('EXISTS', 'phpt_502:r1', 'phpt_502:r2'), "\n";
}
unlink($log);
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_502:');
?>
--EXPECT--
destruction, deferred (the default): written, told when its reply is read
  told at once: 0
bool(false)
  startNs when written: true
  callNs until the reply was read (>= 20 ms): true
  release a released implicit=1 rt=0 server=ok held=>0
destruction, not deferred: confirmed at once, told at the next call
  key gone: true, told: 0
bool(false)
  release b released implicit=1 rt=>0 server=ok held=>0
endRequest(): every lease still held, in one round trip
int(2)
  release k1 released implicit=1 rt=>0 server=ok held=>0
  release k2 released implicit=1 rt=0 server=ok held=>0
observers kept: 2 events
  inert handles tell nothing: 0
request end (child PHP): told to the observer at request end
  normal end: exit 0
    acquire r1 acquired implicit=0
    acquire r2 acquired implicit=0
    release r1 released implicit=1
    release r2 released implicit=1
    keys left: 0
  fatal error: exit 255
    acquire r1 acquired implicit=0
    acquire r2 acquired implicit=0
    release r1 released implicit=1
    release r2 released implicit=1
    keys left: 0
  exit in a function: exit 3
    acquire r1 acquired implicit=0
    acquire r2 acquired implicit=0
    release r1 released implicit=1
    release r2 released implicit=1
    keys left: 0
