<?php

namespace DistLock\Laravel\Tests\Feature;

require_once __DIR__ . '/octane-standins.php';

use DistLock\Laravel\Events\LockAcquired;
use DistLock\Laravel\Events\LockAcquireFailed;
use DistLock\Laravel\Events\LockConnectionFailed;
use DistLock\Laravel\Events\LockEvent;
use DistLock\Laravel\Events\LockLost;
use DistLock\Laravel\Events\LockRefreshed;
use DistLock\Laravel\Events\LockReleased;
use DistLock\Laravel\LockEventBridge;
use Illuminate\Contracts\Cache\LockTimeoutException;
use Illuminate\Contracts\Debug\ExceptionHandler;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Facades\Event;

/**
 * Laravel events of lock operations (LockEventBridge), on the real redis-server:
 * what a listener receives for each outcome; in fresh artisan processes, that no
 * event is built while nothing listens, and that a lock of a DistLock made before
 * the app's own client is seen by a listener added after boot; one observer per
 * process however many apps it makes (Octane, queue workers, these tests).
 */
class LockEventsTest extends AppTestCase
{
    /** @var list<LockEvent> */
    private array $seen = [];

    protected function setUp(): void
    {
        parent::setUp();
        $this->assertTrue(LockEventBridge::observerAvailable(), 'the extension has DistLock::addObserver()');
    }

    /** Listens to every lock event from now on (added after boot: the store, built on first use, looks). */
    private function listen(): void
    {
        Event::listen(LockEvent::class, function (LockEvent $e) {
            $this->seen[] = $e;
        });
    }

    /** @return list<LockEvent> the events seen of $class, for lock $name */
    private function seen(string $class, string $name): array
    {
        return array_values(array_filter($this->seen, fn ($e) => $e instanceof $class && $e->name === $name));
    }

    private function server(): string
    {
        return (getenv('REDIS_HOST') ?: '127.0.0.1') . ':' . (getenv('REDIS_PORT') ?: '6379');
    }

    public function testAListenerReceivesAcquiredAndReleasedWithTheirData(): void
    {
        $this->listen();
        $lock = Cache::lock('ev:a', 10);
        $this->assertTrue($lock->get());
        usleep(50000);
        $this->assertTrue($lock->release());
        $this->assertTrue(LockEventBridge::registered());

        [$acq] = $this->seen(LockAcquired::class, 'ev:a');
        $this->assertSame('acquire', $acq->operation);
        $this->assertSame('acquired', $acq->outcome);
        $this->assertSame('mutex', $acq->kind);
        $this->assertSame(['ev:a'], $acq->names, 'the Laravel lock name, without the Redis and cache prefixes');
        $this->assertSame($this->server(), $acq->server);
        $this->assertSame(0, $acq->waitNs);
        $this->assertSame(0.0, $acq->wait);
        $this->assertEqualsWithDelta(10.0, $acq->ttl, 0.001);
        $this->assertNull($acq->fencingToken, 'fencing is off');
        $this->assertNull($acq->held);
        $this->assertFalse($acq->implicit);
        $this->assertNull($acq->error);
        $this->assertGreaterThanOrEqual(1, $acq->roundTrips);
        $this->assertGreaterThan(0, $acq->callNs);
        $this->assertEqualsWithDelta($acq->callNs / 1e9, $acq->duration, 1e-9);

        [$rel] = $this->seen(LockReleased::class, 'ev:a');
        $this->assertSame(['release', 'released', 'mutex'], [$rel->operation, $rel->outcome, $rel->kind]);
        // A cache lock is released by owner (any process may: restoreLock()), not from the
        // grant's handle: the extension does not know when it was granted.
        $this->assertNull($rel->held);
        $this->assertGreaterThanOrEqual($acq->startNs + 50000000, $rel->startNs, 'released 50 ms after the grant');
        $this->assertFalse($rel->implicit);
        $this->assertSame($this->server(), $rel->server);
        $this->assertCount(2, $this->seen, 'one event per operation');

        $this->assertInstanceOf(LockAcquired::class, unserialize(serialize($acq)), 'a queued listener can take it');
    }

    public function testAHandleReleaseWithItsHoldTimeAFencingTokenAndAnImplicitRelease(): void
    {
        $this->listen();
        config(['distlock.options.fencing' => true]);
        $client = app(\DistLock::class);         // built now: it sees the listener
        $lease = $client->lock('ev:fence', 5);
        usleep(50000);
        $this->assertTrue($lease->release());
        [$acq] = $this->seen(LockAcquired::class, 'ev:fence');
        $this->assertIsInt($acq->fencingToken);
        $this->assertSame($lease->fencingToken(), $acq->fencingToken);
        [$rel] = $this->seen(LockReleased::class, 'ev:fence');
        $this->assertFalse($rel->implicit);
        $this->assertGreaterThanOrEqual(0.05, $rel->held, 'held for the 50 ms between lock() and release()');
        $this->assertLessThan(5.0, $rel->held);
        $this->assertSame($rel->heldNs / 1e9, $rel->held);

        $lease = $client->lock('ev:fence', 5);
        $second = $lease->fencingToken();
        $this->assertGreaterThan($acq->fencingToken, $second);
        unset($lease);           // released by destruction: reported when its reply is read
        $this->assertFalse($client->isLocked('ev:fence'));
        \DistLock::endRequest();
        $rels = $this->seen(LockReleased::class, 'ev:fence');
        $this->assertCount(2, $rels, json_encode(array_map(fn ($e) => [get_class($e), $e->operation, $e->outcome], $this->seen)));
        $this->assertTrue($rels[1]->implicit);
        $this->assertSame($second, $this->seen(LockAcquired::class, 'ev:fence')[1]->fencingToken);
    }

    public function testAConflictAndATimeout(): void
    {
        $this->listen();
        $this->assertTrue(Cache::lock('ev:c', 10)->get());
        $this->assertFalse(Cache::lock('ev:c', 10)->get());
        [$conflict] = $this->seen(LockAcquireFailed::class, 'ev:c');
        $this->assertSame(['acquire', 'conflict'], [$conflict->operation, $conflict->outcome]);
        $this->assertSame(0, $conflict->waitNs);

        try {
            Cache::lock('ev:c', 10)->block(0.3);
            $this->fail('block() got a held lock');
        } catch (LockTimeoutException $e) {
        }
        $failed = $this->seen(LockAcquireFailed::class, 'ev:c');
        $this->assertCount(2, $failed);
        $this->assertSame('timeout', $failed[1]->outcome);
        $this->assertGreaterThanOrEqual(0.25, $failed[1]->wait, 'it waited about 0.3 s');
        $this->assertLessThan(3.0, $failed[1]->wait);
        $this->assertCount(1, $this->seen(LockAcquired::class, 'ev:c'));
    }

    public function testALostLeaseARefreshAndAWaitThatGotIt(): void
    {
        $this->listen();
        $lock = Cache::lock('ev:l', 10);
        $this->assertTrue($lock->get());
        $this->assertTrue($lock->refresh(20));
        [$refresh] = $this->seen(LockRefreshed::class, 'ev:l');
        $this->assertSame(['refresh', 'refreshed', false], [$refresh->operation, $refresh->outcome, $refresh->renewal]);
        $this->assertEqualsWithDelta(20.0, $refresh->ttl, 0.001);

        $this->raw()->del($this->lockKey('ev:l'));      // the lease is gone (expired, or deleted by an admin)
        $this->assertFalse($lock->release());
        [$lost] = $this->seen(LockLost::class, 'ev:l');
        $this->assertSame(['release', 'lost'], [$lost->operation, $lost->outcome]);
        $this->assertSame([], $this->seen(LockReleased::class, 'ev:l'), 'not reported as released');

        // a block() that waited for a release: LockAcquired with the wait
        $holder = Cache::lock('ev:w', 10);
        $this->assertTrue($holder->get());
        $p = $this->startArtisan(['dltest:release', 'ev:w', $holder->owner(), '--delay=0.5']);
        $this->assertTrue(Cache::lock('ev:w', 10)->block(5));
        $this->finish($p);
        $got = $this->seen(LockAcquired::class, 'ev:w');
        $this->assertCount(2, $got);
        $this->assertGreaterThan(0, $got[1]->waitNs, 'the second acquire waited');
    }

    public function testTheWatchdogsRenewalsAndALeaseFoundLost(): void
    {
        $this->listen();
        config(['distlock.options.watchdog' => true]);
        $client = app(\DistLock::class);
        $lease = $client->lock('ev:dog', 0.6);          // renewed every 0.2 s
        usleep(900000);
        $this->assertTrue($client->isLocked('ev:dog'));  // a distlock call: renewals are reported here at the latest
        $renewals = $this->seen(LockRefreshed::class, 'ev:dog');
        $this->assertGreaterThanOrEqual(2, count($renewals), 'the watchdog renewed it in the background');
        $this->assertSame(['renewal', 'refreshed', true], [$renewals[0]->operation, $renewals[0]->outcome, $renewals[0]->renewal]);

        $this->raw()->del('lock:ev:dog');               // taken away behind its back
        usleep(900000);
        $client->isLocked('ev:other');
        $lost = $this->seen(LockLost::class, 'ev:dog');
        $this->assertNotEmpty($lost, 'the watchdog found the lease gone');
        $this->assertContains($lost[0]->operation, ['renewal', 'lost']);
        $this->assertSame('lost', $lost[0]->outcome);
        unset($lease);
    }

    public function testAnotherKindIsAWrongKindFailure(): void
    {
        $this->listen();
        $read = Cache::store('distlock')->readLock('ev:k', 10);
        $this->assertTrue($read->get());
        $this->assertFalse(Cache::lock('ev:k', 10)->get(), 'held as a read lock');
        $failed = $this->seen(LockAcquireFailed::class, 'ev:k');
        $this->assertSame(['wrong_kind'], array_map(fn ($e) => $e->outcome, $failed));
        $this->assertSame('shared', $this->seen(LockAcquired::class, 'ev:k')[0]->kind);
        $this->assertTrue($read->release());
    }

    public function testAConnectionFailure(): void
    {
        $this->listen();
        $s = stream_socket_server('tcp://127.0.0.1:0');
        $port = (int) substr(strrchr(stream_socket_get_name($s, false), ':'), 1);
        fclose($s);   // nothing listens there
        config(['distlock.url' => "redis://127.0.0.1:$port", 'distlock.options.connect_timeout' => 0.5]);
        $client = app(\DistLock::class);
        try {
            $client->tryLock('ev:down', 5);
            $this->fail('no ConnectionException');
        } catch (\DistLock\ConnectionException $e) {
        }
        [$e] = $this->seen(LockConnectionFailed::class, 'ev:down');
        $this->assertSame(['acquire', 'error'], [$e->operation, $e->outcome]);
        $this->assertStringContainsString("127.0.0.1:$port", (string) $e->error);
    }

    public function testAFailingListenerIsReportedAndTheLockStands(): void
    {
        $reported = [];
        $handler = $this->app->make(ExceptionHandler::class);
        $this->app->instance(ExceptionHandler::class, new class($handler, $reported) implements ExceptionHandler {
            public function __construct(private $inner, private array &$reported) {}
            public function report(\Throwable $e) { $this->reported[] = $e; }
            public function shouldReport(\Throwable $e) { return true; }
            public function render($request, \Throwable $e) { return $this->inner->render($request, $e); }
            public function renderForConsole($output, \Throwable $e) { $this->inner->renderForConsole($output, $e); }
        });
        Event::listen(LockAcquired::class, function () {
            throw new \RuntimeException('listener failed');
        });
        $lock = Cache::lock('ev:x', 10);
        $this->assertTrue($lock->get(), 'the lock is granted whatever the listener does');
        $this->assertTrue($lock->isOwnedByCurrentProcess());
        $this->assertCount(1, $reported);
        $this->assertSame('listener failed', $reported[0]->getMessage());
        $this->assertTrue($lock->release());
    }

    public function testEventFakeRecordsThem(): void
    {
        Event::fake([LockAcquired::class]);
        $this->assertTrue(Cache::lock('ev:fake', 10)->get());
        Event::assertDispatched(LockAcquired::class, fn (LockAcquired $e) => $e->name === 'ev:fake' && $e->kind === 'mutex');
        Event::assertNotDispatched(LockAcquireFailed::class);
    }

    public function testOneObserverHoweverManyAppsTheProcessMakes(): void
    {
        // Octane keeps one app per worker; queue workers and tests make several in one
        // process: each syncs the bridge, none adds a second observer.
        for ($i = 0; $i < 3; $i++) {
            $this->refreshApplication();
            $this->listen();
            $this->assertTrue(Cache::lock("ev:apps:$i", 10)->get());
        }
        $this->assertCount(1, $this->seen(LockAcquired::class, 'ev:apps:2'), 'dispatched once, not once per app');
        $this->assertCount(1, $this->seen(LockAcquired::class, 'ev:apps:0'));
        $this->assertTrue(\DistLock::removeObserver([LockEventBridge::class, 'observe']));
        $this->assertFalse(\DistLock::removeObserver([LockEventBridge::class, 'observe']), 'it was registered once');
        LockEventBridge::reset();
    }

    public function testOctanesEndOfRequestReportsTheReleasesItMakes(): void
    {
        $this->listen();
        $client = app(\DistLock::class);
        $left = $client->lock('ev:octane', 10);    // a handle the request left behind
        event(new \Laravel\Octane\Events\RequestTerminated($this->app, $this->app, \Illuminate\Http\Request::create('/'), new \Symfony\Component\HttpFoundation\Response('ok')));
        $this->assertFalse($client->isLocked('ev:octane'));
        [$rel] = $this->seen(LockReleased::class, 'ev:octane');
        $this->assertTrue($rel->implicit, 'released by endRequest(), reported as implicit');
        $this->assertIsInt($rel->heldNs);
        unset($left);
    }

    /** @return array<string, mixed> dltest:events' JSON */
    private function eventsProcess(array $args, array $env): array
    {
        $out = $this->artisanOk(array_merge(['dltest:events'], $args), $env);
        $j = json_decode($out, true);
        $this->assertIsArray($j, $out);
        return $j;
    }

    public function testNoListenerNoEventBuilt(): void
    {
        $none = $this->eventsProcess([], []);
        $this->assertSame(['registered_at_start' => true, 'registered' => true, 'event_class_loaded' => false,
            'events' => [], 'removed' => true], $none, 'mode auto, nothing listens: the observer from boot, no event built');

        $always = $this->eventsProcess([], ['DISTLOCK_EVENTS' => 'always']);
        $this->assertTrue($always['registered_at_start'], "mode always: registered");
        $this->assertFalse($always['event_class_loaded'], 'observer, but no listener: no event built');
        $this->assertTrue($always['removed']);

        $late = $this->eventsProcess(['--listen'], []);
        $this->assertTrue($late['registered_at_start']);
        $this->assertSame([[LockAcquired::class, 'acquire', 'dltest-ev', 'acquired']], $late['events']);

        $boot = $this->eventsProcess([], ['DLTEST_BOOT_LISTENER' => '1']);
        $this->assertTrue($boot['registered_at_start'], 'a listener of boot(): registered when the app booted');
        $this->assertSame([
            [LockAcquired::class, 'acquire', 'dltest-ev', 'acquired'],
            [LockReleased::class, 'release', 'dltest-ev', 'released'],
        ], $boot['events']);

        $off = $this->eventsProcess(['--listen'], ['DLTEST_BOOT_LISTENER' => '1', 'DISTLOCK_EVENTS' => 'off']);
        $this->assertSame([false, false, []], [$off['registered_at_start'], $off['registered'], $off['events']]);
    }

    /**
     * Issue 37.5: a DistLock made before the app's own client (by a package, in a service
     * provider's register()), a listener added after boot, no client of the app built
     * since: its locks are seen (the observer is process-wide and registered at boot).
     */
    public function testALockOfAnInstanceMadeBeforeTheAppsClientIsSeen(): void
    {
        $early = $this->eventsProcess(['--early'], ['DLTEST_EARLY_CLIENT' => '1']);
        $this->assertSame([
            [LockAcquired::class, 'acquire', 'dltest-ev', 'acquired'],
            [LockReleased::class, 'release', 'dltest-ev', 'released'],
        ], $early['events'], 'every lock of the process, whichever DistLock took it');

        $off = $this->eventsProcess(['--early'], ['DLTEST_EARLY_CLIENT' => '1', 'DISTLOCK_EVENTS' => 'off']);
        $this->assertSame([], $off['events'], "mode off: none");
    }

    public function testABadModeIsAConfigurationError(): void
    {
        [$rc, $out, $err] = $this->finish($this->startArtisan(['dltest:events'], ['DISTLOCK_EVENTS' => 'sometimes']));
        $this->assertNotSame(0, $rc);
        $this->assertStringContainsString("distlock.events (DISTLOCK_EVENTS) must be 'auto', 'always' or 'off'", $out . $err);
    }
}
