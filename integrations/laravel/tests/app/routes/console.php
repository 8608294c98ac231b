<?php
// Commands the integration tests run as separate processes.

use App\Jobs\UniqueJob;
use App\TraitUser;
use Illuminate\Support\Facades\Artisan;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Facades\Redis;

/* Takes a lock and exits without releasing it; prints the owner, or NOT. */
Artisan::command('dltest:hold {name} {seconds} {--owner=}', function ($name, $seconds) {
    $lock = Cache::lock($name, (float) $seconds, $this->option('owner'));
    $this->line($lock->get() ? $lock->owner() : 'NOT');
});

/* Releases a lock by owner from this process: restoreLock()->release(), after --delay seconds. */
Artisan::command('dltest:release {name} {owner} {--delay=0}', function ($name, $owner) {
    usleep((int) ((float) $this->option('delay') * 1e6));
    $this->line(Cache::restoreLock($name, $owner)->release() ? 'released' : 'not-released');
});

/* n read-modify-writes of dltest:counter, each under Cache::lock()->block(). */
Artisan::command('dltest:counter {n}', function ($n) {
    for ($i = 0; $i < (int) $n; $i++) {
        Cache::lock('dltest-counter', 10)->block(30, function () {
            $v = (int) Redis::get('dltest:counter');
            usleep(500);
            Redis::set('dltest:counter', $v + 1);
        });
    }
    $this->line('done');
});

/* n read-modify-writes of dltest:trait-counter under lockAccount(42). */
Artisan::command('dltest:trait-counter {n}', function ($n) {
    $svc = new TraitUser();
    $failed = 0;
    for ($i = 0; $i < (int) $n; $i++) {
        $id = false;
        while ($id === false) { // lockAccount waits 2 s at most
            $id = $svc->lockAccount(42);
            $failed += $id === false ? 1 : 0;
        }
        $v = (int) Redis::get('dltest:trait-counter');
        usleep(500);
        Redis::set('dltest:trait-counter', $v + 1);
        if (!$svc->unLockAccount(42, $id)) {
            $this->error('unlock failed');
            return 1;
        }
    }
    $this->line("done $failed");
});

/* Dispatches the unique job $times times. */
Artisan::command('dltest:unique {times}', function ($times) {
    for ($i = 0; $i < (int) $times; $i++) {
        UniqueJob::dispatch();
    }
    $this->line('dispatched');
});

/* n callbacks under Concurrency::funnel() with limit $limit, each counting the holders
   in Redis (INCR, a short pause, DECR); prints how many saw more than $limit. */
Artisan::command('dltest:funnel {n} {limit}', function ($n, $limit) {
    $over = 0;
    for ($i = 0; $i < (int) $n; $i++) {
        DistLock\Laravel\Concurrency::funnel('dltest-funnel')->limit((int) $limit)->releaseAfter(30)->block(30)
            ->then(function () use ($limit, &$over) {
                if (Redis::incr('dltest:funnel-holders') > (int) $limit) {
                    $over++;
                }
                usleep(300);
                Redis::decr('dltest:funnel-holders');
            });
    }
    $this->line("over $over");
});

/* Holds the only slot of the funnel dltest-hold for $seconds; prints "held", then
   "releasing <hrtime ns>" just before the release. */
Artisan::command('dltest:funnel-hold {seconds}', function ($seconds) {
    DistLock\Laravel\Concurrency::funnel('dltest-hold')->limit(1)->releaseAfter(30)->block(5)
        ->then(function () use ($seconds) {
            $this->line('held');
            usleep((int) ((float) $seconds * 1e6));
            $this->line('releasing ' . hrtime(true));
        });
});

/* Holds a read lock on $name for $seconds through the distlock store; prints "held",
   then "releasing <hrtime ns>" just before the release. */
Artisan::command('dltest:read-hold {name} {seconds}', function ($name, $seconds) {
    Cache::store('distlock')->readLock($name, 30)->block(5, function () use ($seconds) {
        $this->line('held');
        usleep((int) ((float) $seconds * 1e6));
        $this->line('releasing ' . hrtime(true));
    });
});

/* Waits up to $wait seconds for Cache::lock($name) (block()); prints "got" or "timeout". */
Artisan::command('dltest:block {name} {wait}', function ($name, $wait) {
    try {
        Cache::lock($name, 5)->block((float) $wait, fn () => null);
        $this->line('got');
    } catch (Illuminate\Contracts\Cache\LockTimeoutException $e) {
        $this->line('timeout');
    }
});

/* One side of a deadlock: takes $first (Cache::store('distlock')->lock(), or its writeLock() with
   --kind=rw), waits (at most 10 s) until $second is held (by the other side), then block(10) on
   $second (lock(), or readLock() with --kind=rw). Prints JSON: outcome "granted", "deadlock"
   (Laravel's LockTimeoutException, a DeadlockException as previous) or "timeout" (another
   LockTimeoutException), the seconds block() took, the exception's message and its
   previous's class, and the outcomes of the LockAcquireFailed events it saw. Releases both. */
Artisan::command('dltest:deadlock {first} {second} {--kind=mutex}', function ($first, $second) {
    $rw = $this->option('kind') === 'rw';
    $store = Cache::store('distlock');
    $failed = [];
    Illuminate\Support\Facades\Event::listen(DistLock\Laravel\Events\LockAcquireFailed::class, function ($e) use (&$failed) {
        $failed[] = $e->outcome;
    });
    $mine = $rw ? $store->writeLock($first, 30) : $store->lock($first, 30);
    if (!$mine->get()) {
        $this->line(json_encode(['outcome' => 'first not acquired']));
        return 1;
    }
    $deadline = microtime(true) + 10;
    while (!($rw ? $store->writeLock($second)->isLocked() : $store->lock($second)->isLocked())) {
        if (microtime(true) > $deadline) {
            $mine->release();
            $this->line(json_encode(['outcome' => 'second never held']));
            return 1;
        }
        usleep(2000);
    }
    $theirs = $rw ? $store->readLock($second, 30) : $store->lock($second, 30);
    $out = [];
    $t = hrtime(true);
    try {
        $theirs->block(10);
        $out = ['outcome' => 'granted', 'seconds' => (hrtime(true) - $t) / 1e9];
        $theirs->release();
    } catch (Illuminate\Contracts\Cache\LockTimeoutException $e) {
        $out = ['outcome' => $e->getPrevious() instanceof DistLock\DeadlockException ? 'deadlock' : 'timeout',
            'seconds' => (hrtime(true) - $t) / 1e9, 'message' => $e->getMessage(),
            'previous' => $e->getPrevious() ? get_class($e->getPrevious()) : null];
    }
    $mine->release();
    $this->line(json_encode($out + ['failed_events' => $failed]));
});

/* The lock events in a fresh process: with --listen a listener of LockAcquired added in
   the command (after boot), then app(\DistLock::class) built; with --early a listener of
   every LockEvent added in the command and a lock taken through the DistLock that
   App\Providers\LockListenerProvider made in register() (DLTEST_EARLY_CLIENT=1), not Cache::lock(); DLTEST_BOOT_LISTENER=1 one of every LockEvent from boot
   (App\Providers\LockListenerProvider); DISTLOCK_EVENTS picks the mode. Takes and
   releases Cache::lock('dltest-ev'), prints JSON: whether the observer was registered
   before and after, whether an event class was ever loaded (an event built), the
   events received, and whether \DistLock::removeObserver() found the observer. */
Artisan::command('dltest:events {--listen} {--early}', function () {
    $got = [];
    $out = ['registered_at_start' => DistLock\Laravel\LockEventBridge::registered()];
    if ($this->option('early')) {
        // issue 37.5: a listener added after boot, and a lock of the DistLock a provider made in
        // register() (DLTEST_EARLY_CLIENT=1), no client of the app built since
        Illuminate\Support\Facades\Event::listen(DistLock\Laravel\Events\LockEvent::class, function ($e) use (&$got) { $got[] = $e; });
        $lock = App\Providers\LockListenerProvider::$early->lock('dltest-ev', 10);
        $lock->release();
    } elseif ($this->option('listen')) {
        Illuminate\Support\Facades\Event::listen(DistLock\Laravel\Events\LockAcquired::class, function ($e) use (&$got) { $got[] = $e; });
        app(\DistLock::class);   // the first client built after the listener (the cache store may be built
                                 // before the command runs: Laravel 8's artisan resolves it for its commands)
    }
    if (!$this->option('early')) {
        $lock = Cache::lock('dltest-ev', 10);
        $lock->get();
        $lock->release();
    }
    $out['registered'] = DistLock\Laravel\LockEventBridge::registered();
    $out['event_class_loaded'] = class_exists(DistLock\Laravel\Events\LockAcquired::class, false)
        || class_exists(DistLock\Laravel\Events\LockReleased::class, false);
    $out['events'] = array_map(fn ($e) => [get_class($e), $e->operation, $e->name, $e->outcome],
        array_merge($got, App\Providers\LockListenerProvider::$events));
    $out['removed'] = \DistLock::removeObserver([DistLock\Laravel\LockEventBridge::class, 'observe']);
    $this->line(json_encode($out));
});
