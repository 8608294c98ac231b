<?php

namespace DistLock\Laravel\Tests\Feature;

require_once __DIR__ . '/octane-standins.php';

use DistLock\Laravel\EndRequest;
use Illuminate\Http\Request;
use Illuminate\Support\Facades\Cache;
use Laravel\Octane\Events\RequestTerminated;
use Laravel\Octane\Events\TaskTerminated;
use Symfony\Component\HttpFoundation\Response;

/**
 * Under Octane one PHP request serves many HTTP requests: the provider ends
 * each one for distlock (\DistLock::endRequest()) on Octane's RequestTerminated
 * and TaskTerminated events. Octane's classes are stood in (octane-standins.php).
 */
class OctaneTest extends AppTestCase
{
    public function testRequestAndTaskTerminatedReleaseWhatTheRequestLeft(): void
    {
        $this->assertTrue(EndRequest::octaneInstalled());
        $d = app(\DistLock::class);
        foreach ([
            fn () => new RequestTerminated($this->app, $this->app, Request::create('/'), new Response('ok')),
            fn () => new TaskTerminated($this->app, $this->app, ['task'], 'result'),
        ] as $i => $make) {
            $leaked = $d->lock("octane:$i", 10);     // a handle the request left behind
            $kept = $d->lock("octane:kept:$i", 10);  // meant to outlive the request
            $kept->detach();
            $cacheLock = Cache::lock("octane:cache:$i", 10);
            $this->assertTrue($cacheLock->get());    // Laravel's locks outlive requests by design
            $this->assertTrue($d->isLocked("octane:$i"));

            event($make());

            $this->assertFalse($d->isLocked("octane:$i"), "event $i released the request's lease");
            $this->assertFalse($leaked->release(), 'the handle finds it no longer ours');
            $this->assertTrue($d->isLocked("octane:kept:$i"), 'a detached lease stays');
            $this->assertTrue($cacheLock->release(), "Laravel's cache lock stays until released");
            $this->assertTrue($d->forceRelease("octane:kept:$i"));
        }
    }

    public function testAnOtherEventReleasesNothing(): void
    {
        $d = app(\DistLock::class);
        $l = $d->lock('octane:other', 10);
        event('some.other.event');
        $this->assertTrue($l->isAcquired());
        $this->assertTrue($l->release());
    }
}
