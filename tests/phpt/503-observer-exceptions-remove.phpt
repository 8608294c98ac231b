--TEST--
Observer: an observer's exception is swallowed and counted (the operation's result, its own exception and the lease untouched; later observers run); calls inside an observer tell nothing; removeObserver() compares callables; connection errors are outcome 'error'
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--FILE--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_503:');
$d = new DistLock(test_uri(), ['prefix' => 'phpt_503:']);
$o = new DistLock(test_uri(), ['prefix' => 'phpt_503:']);
$seen = [];

echo "a throwing observer\n";
$thrower = function (DistLock\Event $e) { throw new RuntimeException("observer failed on $e->operation"); };
$recorder = function (DistLock\Event $e) use (&$seen) { $seen[] = "$e->operation $e->name $e->outcome"; };
DistLock::addObserver($thrower);
DistLock::addObserver($recorder);
$errors0 = $d->stats()['observer_errors'];
$l = $d->lock('x', 5);
echo "  lock returned a handle: ", get_class($l), ", held: ", var_export(raw_redis('GET', 'phpt_503:x') === $l->token(), true), "\n";
echo "  observer_errors +", $d->stats()['observer_errors'] - $errors0, "\n";
try {
    $o->lock('x', 5, 0.1);
} catch (Throwable $x) {
    echo "  the operation's own exception: ", get_class($x), ", previous: ", var_export($x->getPrevious(), true), "\n";
}
var_dump($o->tryLock('x'));
var_dump($l->release());
echo "  released: ", var_export(raw_redis('EXISTS', 'phpt_503:x') === 0, true), "\n";
echo "  observer_errors +", $d->stats()['observer_errors'] - $errors0, "\n";
echo "  later observer saw: ", implode('; ', $seen), "\n";
$seen = [];

echo "removeObserver\n";
var_dump(DistLock::removeObserver($thrower), DistLock::removeObserver($thrower));
var_dump(DistLock::removeObserver(function (DistLock\Event $e) {}));   // another closure
function named_observer(DistLock\Event $e): void { echo "  named_observer: $e->operation $e->name\n"; }
final class Obs {
    public array $got = [];
    public function on(DistLock\Event $e): void { $this->got[] = $e->name; }
    public static function stat(DistLock\Event $e): void { echo "  Obs::stat: $e->name\n"; }
    public function __invoke(DistLock\Event $e): void { echo "  invoked: $e->name\n"; }
    public function __call($m, $a) { echo "  __call $m: {$a[0]->name}\n"; }
}
$obj = new Obs();
DistLock::addObserver('named_observer');
DistLock::addObserver([$obj, 'on']);
DistLock::addObserver('Obs::stat');
DistLock::addObserver($obj);
DistLock::addObserver([$obj, 'magic']);
$d->tryLock('y')->release();
var_dump(DistLock::removeObserver('NAMED_OBSERVER'), DistLock::removeObserver([new Obs(), 'on']), DistLock::removeObserver([$obj, 'on']));
var_dump(DistLock::removeObserver(['Obs', 'stat']), DistLock::removeObserver($obj), DistLock::removeObserver([$obj, 'MAGIC']));
var_dump(DistLock::removeObserver($recorder));
echo "  ", implode(',', $obj->got), "\n";
$seen = [];
$d->tryLock('z')->release();
echo "  nothing observes now: ", count($seen), "\n";

echo "no recursion: a call inside an observer tells nothing\n";
$inner = function (DistLock\Event $e) use ($o, &$seen) {
    $seen[] = "$e->operation $e->name";
    if ($e->name === 'outer') {
        $h = $o->tryLock('inner');
        $h?->release();
        $seen[] = 'inner done';
    }
};
DistLock::addObserver($inner);
$d->tryLock('outer')->release();
echo "  ", implode('; ', $seen), "\n";
$seen = [];
DistLock::removeObserver($inner);

echo "an observer removing itself, one adding another\n";
// (by $GLOBALS, not use (&$self): a closure holding itself is a cycle PHP leaves to the GC)
$self = function (DistLock\Event $e) use (&$seen) {
    $seen[] = "self $e->operation";
    DistLock::removeObserver($GLOBALS['self']);
    DistLock::addObserver(function (DistLock\Event $e) use (&$seen) { $seen[] = "added $e->operation"; });
};
DistLock::addObserver($self);
$d->tryLock('s')->release();
echo "  ", implode('; ', $seen), "\n";
$seen = [];

echo "connection error: outcome error, the exception's message\n";
$events = [];
$rec = function (DistLock\Event $e) use (&$events) { $events[] = $e; };
DistLock::addObserver($rec);
$bad = new DistLock('redis://127.0.0.1:' . free_port(), ['connect_timeout' => 0.5]);
try { $bad->lock('e', 5, 0); } catch (DistLock\ConnectionException $x) { $msg = $x->getMessage(); }
$e = end($events);
printf("  %s %s %s rt=%d server=%s error is the message: %s\n", $e->operation, $e->name, $e->outcome, $e->roundTrips,
    var_export($e->server, true), var_export($e->error === $msg, true));
echo "bad callables are TypeErrors\n";
try { DistLock::addObserver('no_such_function'); } catch (TypeError $x) { echo "  ", $x->getMessage(), "\n"; }
try { DistLock::removeObserver(42); } catch (TypeError $x) { echo "  ", $x->getMessage(), "\n"; }
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_503:');
?>
--EXPECTF--
a throwing observer
  lock returned a handle: DistLock\Lock, held: true
  observer_errors +1
  the operation's own exception: DistLock\LockTimeoutException, previous: NULL
NULL
bool(true)
  released: true
  observer_errors +4
  later observer saw: acquire x acquired; acquire x timeout; acquire x conflict; release x released
removeObserver
bool(true)
bool(false)
bool(false)
  named_observer: acquire y
  Obs::stat: y
  invoked: y
  __call magic: y
  named_observer: release y
  Obs::stat: y
  invoked: y
  __call magic: y
bool(true)
bool(false)
bool(true)
bool(true)
bool(true)
bool(true)
bool(true)
  y,y
  nothing observes now: 0
no recursion: a call inside an observer tells nothing
  acquire outer; inner done; release outer; inner done
an observer removing itself, one adding another
  self acquire; added release
connection error: outcome error, the exception's message
  acquire e error rt=0 server=NULL error is the message: true
bad callables are TypeErrors
  DistLock::addObserver(): Argument #1 ($observer) must be a valid callback, function "no_such_function" not found or invalid function name
  DistLock::removeObserver(): Argument #1 ($observer) must be a valid callback, no array or string given
