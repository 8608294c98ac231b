<?php
declare(strict_types=1);
/*
 * bench/laravel-events.php — what the Laravel lock events cost
 * (integrations/laravel, DistLock\Laravel\LockEventBridge), side by side:
 *
 *   A  no observer: the package's default while nothing listens to a lock event;
 *   X  an empty closure as the observer (no Laravel): the extension's own part,
 *      a \DistLock\Event built and a callable called, per operation;
 *   B  the observer registered (DISTLOCK_EVENTS=always), no listener: each
 *      operation builds a \DistLock\Event, calls the observer, which asks the
 *      dispatcher hasListeners() and returns;
 *   C  a no-op listener of LockEvent: the Laravel event built and dispatched.
 *
 *   php -d extension=modules/distlock.so bench/laravel-events.php --redis=127.0.0.1:PORT \
 *       --autoload=APP/vendor/autoload.php [--cycles=2000] [--rounds=9]
 *
 * APP: a Laravel app with distlock/laravel installed (tests/laravel/run.sh makes
 * them; illuminate/events and illuminate/container are what is used). One cycle =
 * tryLock() + release() of an uncontended mutex on one connection (2 round trips).
 * The configurations take turns round by round (A X B C, X B C A, ...), so that a
 * load change on the machine hits all three alike; per configuration the median
 * of the rounds' mean cycle times is shown, wall and CPU (user + system of this
 * process, less disturbed by a busy machine than the wall time). Also the observer's PHP side alone
 * (observe() of a stand-in event, no listener), which needs no server: ns per call.
 */
namespace Bench;

use DistLock\Laravel\Events\LockEvent;
use DistLock\Laravel\LockEventBridge;
use Illuminate\Config\Repository;
use Illuminate\Container\Container;
use Illuminate\Events\Dispatcher;

require __DIR__ . '/lib/util.php';

$opt = getopt('', ['redis:', 'autoload:', 'cycles:', 'rounds:']);
require $opt['autoload'] ?? exit("--autoload=APP/vendor/autoload.php is required\n");
[$HOST, $PORT] = explode(':', $opt['redis'] ?? '127.0.0.1:6379');
$CYCLES = (int) ($opt['cycles'] ?? 2000);
$ROUNDS = (int) ($opt['rounds'] ?? 9);
errors_are_exceptions();

$app = new Container();
$app->instance('config', new Repository(['distlock' => ['events' => 'always']]));
$app->instance('events', $events = new Dispatcher($app));

// The observer's PHP side alone: observe() of an event nobody listens to.
$stub = (object) ['operation' => 'acquire', 'outcome' => 'acquired', 'kind' => 'mutex', 'name' => 'x'];
LockEventBridge::sync($app);   // points the bridge at $app (and registers the observer where the extension has it)
$calls = 200000;
$per = [];
for ($r = 0; $r < 5; $r++) {
    $t = hrtime(true);
    for ($i = 0; $i < $calls; $i++) {
        LockEventBridge::observe($stub);
    }
    $per[] = (hrtime(true) - $t) / $calls;
}
$observeNs = median($per);
LockEventBridge::reset();

if (!LockEventBridge::observerAvailable()) {
    echo "observe() with no listener: ", fmt($observeNs, 0), " ns per call\n";
    exit("this distlock has no DistLock::addObserver(): the cycle comparison needs it\n");
}

$d = new \DistLock("redis://$HOST:$PORT", ['prefix' => 'bench:ev:']);
$noop = static function (LockEvent $e): void {};
$empty = static function (object $e): void {};
$configs = [
    'A' => static function () use ($app) { LockEventBridge::reset(); },
    'X' => static function () use ($empty) { LockEventBridge::reset(); \DistLock::addObserver($empty); },
    'B' => static function () use ($app, $events, $empty) { \DistLock::removeObserver($empty); LockEventBridge::reset(); $events->forget(LockEvent::class); LockEventBridge::sync($app); },
    'C' => static function () use ($app, $events, $noop) { LockEventBridge::reset(); $events->listen(LockEvent::class, $noop); LockEventBridge::sync($app); },
];
$labels = [
    'A' => 'no observer (nothing listens: the default)',
    'X' => 'an empty closure as the observer (the extension\'s part: \\DistLock\\Event built, callable called)',
    'B' => 'observer, no listener (DISTLOCK_EVENTS=always)',
    'C' => 'observer + a no-op listener (event built and dispatched)',
];
/** @return array{0: float, 1: float} µs per cycle: wall, and CPU of this process (user + system) */
$cycle = static function () use ($d, $CYCLES): array {
    $c = cpu_us();
    $t = hrtime(true);
    for ($i = 0; $i < $CYCLES; $i++) {
        $d->tryLock('cycle', 10.0)->release();
    }
    return [(hrtime(true) - $t) / $CYCLES / 1e3, (cpu_us() - $c) / $CYCLES];
};
foreach ($configs as $set) {   // warm-up of each path
    $set();
    $cycle();
}
$res = $cpu = array_fill_keys(array_keys($configs), []);
$order = array_keys($configs);
for ($r = 0; $r < $ROUNDS; $r++) {
    foreach (rotate($order, $r) as $k) {
        $configs[$k]();
        [$res[$k][], $cpu[$k][]] = $cycle();
    }
}
\DistLock::removeObserver($empty);
LockEventBridge::reset();

$rows = [];
$a = median($res['A']);
$ac = median($cpu['A']);
foreach ($res as $k => $xs) {
    $m = median($xs);
    $mc = median($cpu[$k]);
    $rows[] = [$k, $labels[$k], fmt($m, 2), $k === 'A' ? '—' : sprintf('%+.2f (%+.1f %%)', $m - $a, ($m - $a) / $a * 100),
        fmt(min($xs), 2), fmt($mc, 2), $k === 'A' ? '—' : sprintf('%+.2f', $mc - $ac)];
}
printf("PHP %s, distlock %s, illuminate/events %s, %d rounds × %d cycles (tryLock + release) on %s:%s\n\n",
    PHP_VERSION, phpversion('distlock'), \Composer\InstalledVersions::getPrettyVersion('illuminate/events')
        ?? \Composer\InstalledVersions::getPrettyVersion('laravel/framework') ?? '?', $ROUNDS, $CYCLES, $HOST, $PORT);
echo table(['', 'configuration', 'wall µs/cycle (median)', 'vs A', 'wall, best round', 'CPU µs/cycle (median)', 'CPU vs A'], $rows), "\n";
echo "observe() with no listener, PHP side alone: ", fmt($observeNs, 0), " ns per call (2 per cycle)\n";
