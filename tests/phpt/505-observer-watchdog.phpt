--TEST--
Observer: the watchdog's renewals ('renewal', refreshed) and a lease it finds lost ('renewal' lost, then 'lost') are told in the PHP thread at its next call, or before on_lost 'throw' raises
--EXTENSIONS--
distlock
--SKIPIF--
<?php require __DIR__ . '/inc/skipif.inc'; ?>
--INI--
max_execution_time=0
pcre.jit=0
--FILE--
<?php
require __DIR__ . '/inc/lifecycle.inc';
$prefix = 'phpt_505:';
raw_redis_del_prefix($prefix);
$slow = lc_slow();
[$host, $port] = test_host_port();
$server = (str_contains($host, ':') ? "[$host]" : $host) . ":$port";
$events = [];
DistLock::addObserver(function (DistLock\Event $e) use (&$events) { $events[] = $e; });
function summary(): string {
    global $events, $server;
    $out = [];
    foreach ($events as $e) {
        $k = "$e->operation $e->name $e->outcome" . ($e->operation === 'renewal' ? sprintf(' rt=%d ttl=%s server=%s', $e->roundTrips,
             abs($e->ttl - 0.6 * $GLOBALS['slow']) < 0.002 ? 'ok' : var_export($e->ttl, true),
             $e->server === $server ? 'ok' : var_export($e->server, true)) : '')
             . ($e->operation === 'lost' ? ' held=' . ($e->heldNs > 0 ? '>0' : 'BAD') : '');
        $out[$k] = ($out[$k] ?? 0) + 1;
    }
    $events = [];
    return implode("\n", array_map(fn($k, $n) => "  $k" . ($n > 1 ? ' (several)' : ''), array_keys($out), $out));
}

$dl = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true]);
$l = $dl->lock('w', 0.6 * $slow);   // renewed every 0.2 s
echo summary(), "\n";
usleep((int)(700000 * $slow));
echo "told only at the next call: ", count($events), "\n";
$dl->isLocked('x');
echo summary(), "\n";
$e = null;

// lost: the key goes; the watchdog's next renewal finds it gone
raw_redis('DEL', $prefix . 'w');
$lost = lc_wait_until(fn() => $dl->stats()['lost'] > 0, 5 * $slow);
echo "found lost: ", var_export($lost !== null, true), "\n";
$dl->isLocked('x');
echo summary(), "\n";
var_dump($l->isAcquired());
echo "nothing more: ", count($events), "\n";

// on_lost 'throw': the events come before the exception
$t = new DistLock(test_uri(), ['prefix' => $prefix, 'watchdog' => true, 'on_lost' => 'throw']);
$m = $t->lock('t', 0.6 * $slow);
$events = [];
raw_redis('DEL', $prefix . 't');
$n0 = 0;
try {
    $deadline = microtime(true) + 5 * $slow;
    $x = 0;
    while (microtime(true) < $deadline) {
        if ((++$x & 1023) === 0) usleep(50);
    }
    echo "no exception\n";
} catch (DistLock\LockLostException $x) {
    $n0 = count($events);
    echo get_class($x), "; told before: ", implode(', ', array_map(fn($e) => "$e->operation $e->outcome", array_filter($events, fn($e) => $e->outcome === 'lost'))), "\n";
}
?>
--CLEAN--
<?php
require __DIR__ . '/inc/redis.inc';
raw_redis_del_prefix('phpt_505:');
?>
--EXPECT--
  acquire w acquired
told only at the next call: 0
  renewal w refreshed rt=1 ttl=ok server=ok (several)
found lost: true
  renewal w lost rt=1 ttl=ok server=ok
  lost w lost held=>0
bool(false)
nothing more: 0
DistLock\LockLostException; told before: renewal lost, lost lost
