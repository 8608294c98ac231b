--TEST--
Redlock: observer events count one round trip per master whose reply was read in the call (3 to 5: a grant may return at its quorum) and name one of the masters; an implicit release (done at once on Redlock) is told at the next call, without round trips or server
--SKIPIF--
<?php if (!getenv('DISTLOCK_TEST_REDLOCK')) die('skip DISTLOCK_TEST_REDLOCK not set'); ?>
--FILE--
<?php
require __DIR__ . '/redlock.inc';
$masters = array_map(fn($u) => substr($u, strlen('redis://')), rl_uris());
$events = [];
DistLock::addObserver(function (DistLock\Event $e) use (&$events) { $events[] = $e; });
$d = new DistLock(rl_uris(), ['ttl' => 10, 'prefix' => 'rl_obs:']);
$other = new DistLock(rl_uris(), ['ttl' => 10, 'prefix' => 'rl_obs:']);
function show(array $es): void {
    global $masters;
    foreach ($es as $e) {
        printf("%s %s %s rt=%s server is a master: %s implicit=%d\n", $e->operation, $e->name, $e->outcome,
            $e->implicit ? $e->roundTrips : ($e->roundTrips >= 3 && $e->roundTrips <= 5 ? '3..5' : $e->roundTrips),
            var_export(in_array($e->server, $masters, true), true), (int)$e->implicit);
    }
}
$l = $d->lock('a');
var_dump($other->tryLock('a'));
$l->refresh(20);
$l->release();
show($events);
$events = [];
$m = $d->lock('b');
$events = [];
unset($m);
echo "told at once: ", count($events), "\n";
$d->isLocked('b');
show($events);
?>
--CLEAN--
<?php
require __DIR__ . '/redlock.inc';
foreach ([0, 1, 2, 3, 4] as $i) { rl_node($i)->forceRelease('rl_obs:a'); rl_node($i)->forceRelease('rl_obs:b'); }
?>
--EXPECT--
NULL
acquire a acquired rt=3..5 server is a master: true implicit=0
acquire a conflict rt=3..5 server is a master: true implicit=0
refresh a refreshed rt=3..5 server is a master: true implicit=0
release a released rt=3..5 server is a master: true implicit=0
told at once: 0
release b released rt=0 server is a master: false implicit=1
