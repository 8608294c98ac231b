--TEST--
Observer: DistLock\Event of a mutex's acquire (acquired, conflict, timeout with its wait), explicit release (handle, token, lost), refresh (refreshed, lost); the fields, the class
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_500:');
[$host, $port] = test_host_port();
$server = (str_contains($host, ':') ? "[$host]" : $host) . ":$port";

$events = [];
DistLock::addObserver(function (DistLock\Event $e) use (&$events) { $events[] = $e; });
function take(): array { global $events; $e = $events; $events = []; return $e; }
function show(DistLock\Event $e): void {
    global $server;
    printf("%s %s %s [%s] %s rt>=1=%d server=%s ttl=%s fence=%s held=%s implicit=%d error=%s\n",
        $e->operation, $e->kind, $e->name, implode(',', $e->names), $e->outcome, (int)($e->roundTrips >= 1),
        $e->server === $server ? 'ok' : var_export($e->server, true), var_export($e->ttl, true),
        var_export($e->fencingToken, true), $e->heldNs === null ? 'null' : ($e->heldNs > 0 ? '>0' : 'BAD'),
        (int)$e->implicit, var_export($e->error, true));
}

$d = new DistLock(test_uri(), ['prefix' => 'phpt_500:', 'fencing' => true]);
$other = new DistLock(test_uri(), ['prefix' => 'phpt_500:']);

$t0 = hrtime(true);
$l = $d->lock('m', 5);
$t1 = hrtime(true);
[$e] = take();
show($e);
echo "startNs within the call: ", var_export($e->startNs >= $t0 && $e->startNs <= $t1, true), "\n";
echo "callNs within the call: ", var_export($e->callNs > 0 && $e->startNs + $e->callNs <= $t1, true), "\n";
echo "waitNs 0 (no wait): ", var_export($e->waitNs === 0, true), "\n";
echo "fencing token is the handle's: ", var_export($e->fencingToken === $l->fencingToken(), true), "\n";
echo "permits null: ", var_export($e->permits, true), "\n";

// conflict: try form, held by another
var_dump($other->tryLock('m'));
[$e] = take();
show($e);
echo "waitNs 0: ", var_export($e->waitNs === 0, true), "\n";

// timeout: a wait that ended (0.3 s; generous margins)
try {
    $other->lock('m', 5, 0.3);
} catch (DistLock\LockTimeoutException $x) {
    echo get_class($x), "\n";
}
[$e] = take();
show($e);
echo "waited about 0.3 s: ", var_export($e->waitNs >= 250000000 && $e->waitNs < 5000000000, true), "\n";
echo "callNs >= waitNs: ", var_export($e->callNs >= $e->waitNs, true), "\n";

// refresh by handle, then by token
var_dump($l->refresh(7));
show(take()[0]);
var_dump($d->refresh('m', $l->token(), 8));
show(take()[0]);
var_dump($d->refresh('gone', 'no-such-token'));
show(take()[0]);

// explicit release: held about 50 ms or more
usleep(50000);
var_dump($l->release());
[$e] = take();
show($e);
echo "held >= 50 ms: ", var_export($e->heldNs >= 50000000 && $e->heldNs < 60000000000, true), "\n";
// again: nothing happens, no event
var_dump($l->release(), count(take()));

// release by token, and a token that holds nothing
$l2 = $d->lock('t', 5);
take();
var_dump($d->release('t', $l2->token()));
show(take()[0]);
var_dump($d->release('t', 'not-the-owner'));
show(take()[0]);

// a lease lost under us: refresh and release say lost
$l3 = $d->lock('x', 5);
take();
raw_redis('DEL', 'phpt_500:x');
var_dump($l3->refresh());
show(take()[0]);
var_dump($l3->release());
show(take()[0]);

// the class
$r = new ReflectionClass('DistLock\Event');
echo "final=", var_export($r->isFinal(), true), " props=", implode(',', array_map(fn($p) => ($p->isReadOnly() ? 'ro ' : '') . $p->getType() . ' ' . $p->getName(), $r->getProperties())), "\n";
try { $e->outcome = 'x'; } catch (Error $x) { echo get_class($x), ": ", $x->getMessage(), "\n"; }
try { new DistLock\Event(); } catch (Error $x) { echo get_class($x), ": ", $x->getMessage(), "\n"; }
try { serialize($e); } catch (Exception $x) { echo get_class($x), ": ", $x->getMessage(), "\n"; }
echo "no event was left: ", count(take()), "\n";
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_500:');
?>
--EXPECT--
acquire mutex m [m] acquired rt>=1=1 server=ok ttl=5.0 fence=1 held=null implicit=0 error=NULL
startNs within the call: true
callNs within the call: true
waitNs 0 (no wait): true
fencing token is the handle's: true
permits null: NULL
NULL
acquire mutex m [m] conflict rt>=1=1 server=ok ttl=30.0 fence=NULL held=null implicit=0 error=NULL
waitNs 0: true
DistLock\LockTimeoutException
acquire mutex m [m] timeout rt>=1=1 server=ok ttl=5.0 fence=NULL held=null implicit=0 error=NULL
waited about 0.3 s: true
callNs >= waitNs: true
bool(true)
refresh mutex m [m] refreshed rt>=1=1 server=ok ttl=7.0 fence=NULL held=null implicit=0 error=NULL
bool(true)
refresh mutex m [m] refreshed rt>=1=1 server=ok ttl=8.0 fence=NULL held=null implicit=0 error=NULL
bool(false)
refresh mutex gone [gone] lost rt>=1=1 server=ok ttl=30.0 fence=NULL held=null implicit=0 error=NULL
bool(true)
release mutex m [m] released rt>=1=1 server=ok ttl=NULL fence=NULL held=>0 implicit=0 error=NULL
held >= 50 ms: true
bool(false)
int(0)
bool(true)
release mutex t [t] released rt>=1=1 server=ok ttl=NULL fence=NULL held=>0 implicit=0 error=NULL
bool(false)
release mutex t [t] lost rt>=1=1 server=ok ttl=NULL fence=NULL held=null implicit=0 error=NULL
bool(false)
refresh mutex x [x] lost rt>=1=1 server=ok ttl=5.0 fence=NULL held=null implicit=0 error=NULL
bool(false)
release mutex x [x] lost rt>=1=0 server=NULL ttl=NULL fence=NULL held=null implicit=0 error=NULL
final=true props=ro string operation,ro string kind,ro string name,ro array names,ro string outcome,ro int startNs,ro int callNs,ro int waitNs,ro int roundTrips,ro ?string server,ro ?int fencingToken,ro ?float ttl,ro ?int permits,ro ?int heldNs,ro bool implicit,ro ?string error
Error: Cannot modify readonly property DistLock\Event::$outcome
Error: Call to private DistLock\Event::__construct() from global scope
Exception: Serialization of 'DistLock\Event' is not allowed
no event was left: 0
