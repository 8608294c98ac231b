<?php

declare(strict_types=1);

namespace DistLock\Symfony\Tests\ProfilerApp;

use DistLock\Symfony\DataCollector\DistLockDataCollector;
use Symfony\Component\HttpFoundation\JsonResponse;
use Symfony\Component\HttpFoundation\Response;
use Symfony\Component\Lock\LockFactory;

/**
 * The test application's pages.
 *
 * /locks: one request that takes locks of every kind the panel shows, and
 * waits for one that a second process (holder.php) holds for a moment:
 *   invoice:42   symfony/lock on DistLockStore: acquired, refreshed (symfony's
 *                Lock sets its ttl), released
 *   report:42    held by the other process: a try conflicts, then a blocking
 *                acquire waits (woken by the holder's release), then released
 *   catalog      a read lock (shared), released
 *   orders:7     a DistLock client with fencing on: a fencing token, released
 *   session:9    a lease dropped with its Lock object: an implicit release
 *   cache:rebuild synchronized(): the implicit release at its end
 *   pdf-render   a semaphore: 1 of 4 permits, released
 *   export:3     a 0.1 s lease released after 0.25 s: found lost
 * /observers: whether the Locks collector's class was loaded in this request
 * (the bundle registers it only with the profiler: in 'prod' it must not be).
 */
final class LockController
{
    /** How long the other process holds report:42, seconds. */
    private const HOLD = 1.0;

    public function __construct(private readonly LockFactory $locks)
    {
    }

    public function locks(): Response
    {
        $holder = Holder::start('report:42', self::HOLD);
        try {
            $invoice = $this->locks->createLock('invoice:42', 30.0);
            $invoice->acquire();
            $invoice->release();

            $report = $this->locks->createLock('report:42', 30.0);
            $conflicted = !$report->acquire(false);
            $t0 = hrtime(true);
            $report->acquire(true);
            $waitedMs = (hrtime(true) - $t0) / 1e6;
            $report->release();

            $catalog = $this->locks->createLock('catalog', 30.0);
            $catalog->acquireRead(true);
            $catalog->release();
        } finally {
            $holder->close();
        }

        $client = new \DistLock((string) getenv('DISTLOCK_TEST_REDIS'), ['prefix' => 'app:', 'fencing' => true]);
        $order = $client->lock('orders:7', 10.0, 2.0);
        $fencing = $order->fencingToken();
        $order->release();
        (static function (\DistLock $client): void {
            $client->lock('session:9', 10.0, 2.0); // dropped at once: released by scope end
        })($client);
        $client->synchronized('cache:rebuild', static fn () => usleep(20000), 10.0, 2.0);
        $pdf = $client->acquirePermits('pdf-render', 4, 1, 30.0, 2.0);
        $pdf->release();
        $export = $client->lock('export:3', 0.1, 2.0);
        usleep(250000); // the lease runs out
        $export->release();

        $html = \sprintf(
            '<!DOCTYPE html><html><head><meta charset="UTF-8"><title>distlock profiler test</title></head><body>'
            . '<h1>Locks taken</h1><p id="result" data-conflicted="%s" data-waited-ms="%.1f" data-fencing-token="%s">'
            . 'report:42 conflicted: %s; waited %.1f ms for it; orders:7 fencing token %s</p></body></html>',
            $conflicted ? 'yes' : 'no', $waitedMs, $fencing ?? '', $conflicted ? 'yes' : 'no', $waitedMs, $fencing ?? '-',
        );

        return new Response($html, 200, ['Content-Type' => 'text/html; charset=UTF-8']);
    }

    public function observers(): JsonResponse
    {
        return new JsonResponse([
            'collector_loaded' => class_exists(DistLockDataCollector::class, false),
            'observer_api' => method_exists(\DistLock::class, 'addObserver'),
        ]);
    }
}
