<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\Profiler;

use DistLock\Symfony\DataCollector\DistLockDataCollector;
use DistLock\Symfony\DependencyInjection\ProfilerPass;
use DistLock\Symfony\DistLockBundle;
use DistLock\Symfony\Tests\ProfilerApp\Kernel;
use DistLock\Symfony\Tests\Support\Redis;
use PHPUnit\Framework\TestCase;
use Symfony\Component\DependencyInjection\ContainerBuilder;
use Symfony\Component\HttpFoundation\Request;

/**
 * The Locks collector in process: it observes from kernel.request to the
 * profile's save and not after, its totals, serialization of the profile,
 * reset between a worker's requests, and the bundle's wiring only with a
 * profiler. Needs the extension's observer, symfony/framework-bundle,
 * twig-bundle and web-profiler-bundle (DISTLOCK_SF_AUTOLOAD), and
 * DISTLOCK_TEST_REDIS.
 */
final class DistLockDataCollectorTest extends TestCase
{
    private static function lockName(string $what): string
    {
        return 'sf:collector:' . $what . ':' . bin2hex(random_bytes(4));
    }

    public function testItRecordsBetweenStartAndStopOnly(): void
    {
        $client = Redis::client();
        $collector = new DistLockDataCollector();
        $before = self::lockName('before');
        $client->tryLock($before, 5.0)?->release();

        $collector->start();
        $a = self::lockName('a');
        $held = $client->lock($a, 5.0, 1.0);
        $other = Redis::client();
        $this->assertNull($other->tryLock($a, 5.0), 'held by the first client');
        $held->release();
        $collector->stop();

        $client->tryLock(self::lockName('after'), 5.0)?->release();
        $collector->lateCollect();

        $ops = $collector->getOperations();
        $this->assertSame([['acquire', 'mutex', $a, 'acquired'], ['acquire', 'mutex', $a, 'conflict'], ['release', 'mutex', $a, 'released']],
            array_map(static fn (array $o) => [$o['operation'], $o['kind'], $o['name'], $o['outcome']], $ops));
        $t = $collector->getTotals();
        $this->assertSame(3, $t['count']);
        $this->assertSame(1, $t['acquired']);
        $this->assertSame(1, $t['conflicts']);
        $this->assertSame(0, $t['lost']);
        $this->assertSame('yellow', $collector->getStatus());
        $this->assertTrue($collector->isObservable());
        $this->assertGreaterThan(0, $ops[2]['held_ns']);
        $this->assertGreaterThanOrEqual(0, $ops[0]['at_ns']);

        // The profile is stored serialized: the data survive it.
        $copy = unserialize(serialize($collector));
        $this->assertSame($ops, $copy->getOperations());
        $this->assertSame($t, $copy->getTotals());
    }

    public function testResetForgetsTheRequestAndRemovesTheObserver(): void
    {
        $client = Redis::client();
        $collector = new DistLockDataCollector();
        $collector->start();
        $client->tryLock(self::lockName('one'), 5.0)?->release();
        $collector->reset();
        $client->tryLock(self::lockName('two'), 5.0)?->release();
        $collector->lateCollect();
        $this->assertSame([], $collector->getOperations());
        $this->assertSame(0, $collector->getTotals()['count']);
        $this->assertNull($collector->getStatus());
    }

    public function testAWaitAndALostLeaseAreCounted(): void
    {
        $client = Redis::client();
        $name = self::lockName('wait');
        $holder = Redis::client()->lock($name, 0.3, 1.0); // lapses after 0.3 s: the waiter gets it then
        $collector = new DistLockDataCollector();
        $collector->start();
        $lock = $client->lock($name, 0.1, 5.0);
        usleep(250000);
        $lock->release();
        $collector->stop();
        unset($holder);
        $collector->lateCollect();
        $t = $collector->getTotals();
        $this->assertGreaterThan(100_000_000, $t['wait_ns'], 'waited for the other lease to lapse');
        $this->assertSame($t['wait_ns'], $t['max_wait_ns']);
        $this->assertSame(1, $t['lost']);
        $this->assertSame('red', $collector->getStatus());
    }

    public function testInAKernelTheObserverLastsFromTheRequestToTheProfilesSave(): void
    {
        putenv('DISTLOCK_PROFILER_VAR=' . (getenv('DISTLOCK_PROFILER_VAR') ?: sys_get_temp_dir() . '/distlock-collector-test'));
        $kernel = new Kernel('dev', true);
        $request = Request::create('/observers');
        $kernel->boot();
        $profiler = $kernel->getContainer()->get('profiler');
        $collector = $profiler->get('distlock');
        $this->assertInstanceOf(DistLockDataCollector::class, $collector);

        $client = Redis::client();
        $client->tryLock(self::lockName('before-request'), 5.0)?->release();
        // A listener of the request takes a lock: kernel.request runs the collector's start() first.
        $name = self::lockName('in-request');
        $kernel->getContainer()->get('event_dispatcher')->addListener('kernel.controller', static function () use ($client, $name): void {
            $client->tryLock($name, 5.0)?->release();
        });
        $response = $kernel->handle($request);
        $this->assertSame(200, $response->getStatusCode());
        $token = $response->headers->get('X-Debug-Token');
        $this->assertNotNull($token);
        $kernel->terminate($request, $response);

        // After kernel.terminate the observer is gone: this one is in no profile.
        $client->tryLock(self::lockName('after-terminate'), 5.0)?->release();
        $saved = $profiler->loadProfile($token)->getCollector('distlock');
        $this->assertSame([[$name, 'acquired'], [$name, 'released']],
            array_map(static fn (array $o) => [$o['name'], $o['outcome']], $saved->getOperations()));
        $collector->lateCollect();
        $this->assertCount(2, $collector->getOperations(), 'nothing recorded after the save');
        $kernel->shutdown();
    }

    /**
     * The panel's and the toolbar's Twig templates render on the installed
     * web-profiler-bundle, in the kernel (the browser suite, tests/profiler,
     * renders them on 7.4 only; this runs on every version the suite runs).
     */
    public function testThePanelAndTheToolbarRenderTheRequestsLocks(): void
    {
        putenv('DISTLOCK_PROFILER_VAR=' . (getenv('DISTLOCK_PROFILER_VAR') ?: sys_get_temp_dir() . '/distlock-collector-test'));
        $kernel = new Kernel('dev', true);
        $kernel->boot();
        $client = Redis::client();
        $name = self::lockName('rendered');
        $kernel->getContainer()->get('event_dispatcher')->addListener('kernel.controller', static function () use ($client, $name): void {
            $client->tryLock($name, 5.0)?->release();
        });
        $request = Request::create('/observers');
        $response = $kernel->handle($request);
        $token = $response->headers->get('X-Debug-Token');
        $this->assertNotNull($token);
        $kernel->terminate($request, $response);

        $panel = $kernel->handle(Request::create("/_profiler/$token?panel=distlock"));
        $this->assertSame(200, $panel->getStatusCode());
        $this->assertStringContainsString('Locks (distlock)', (string) $panel->getContent());
        $this->assertStringContainsString($name, (string) $panel->getContent(), 'the lock the request took is listed');
        $toolbar = $kernel->handle(Request::create("/_wdt/$token"));
        $this->assertSame(200, $toolbar->getStatusCode());
        $this->assertStringContainsString('Locks', (string) $toolbar->getContent());
        $kernel->shutdown();
    }

    public function testTheBundleAddsTheCollectorOnlyWithAProfiler(): void
    {
        $without = new ContainerBuilder();
        (new DistLockBundle())->build($without);
        (new ProfilerPass())->process($without);
        $this->assertFalse($without->hasDefinition(ProfilerPass::COLLECTOR_ID));

        $with = new ContainerBuilder();
        $with->register('profiler', \stdClass::class);
        (new ProfilerPass())->process($with);
        $def = $with->getDefinition(ProfilerPass::COLLECTOR_ID);
        $this->assertSame(DistLockDataCollector::class, $def->getClass());
        $this->assertSame('distlock', $def->getTag('data_collector')[0]['id']);
        $this->assertSame('@DistLock/Collector/distlock.html.twig', $def->getTag('data_collector')[0]['template']);
        $this->assertTrue($def->hasTag('kernel.event_subscriber'));
        $this->assertFileExists((new DistLockBundle())->getPath() . '/templates/Collector/distlock.html.twig');
    }
}
