<?php

namespace DistLock\Laravel\Tests\Feature;

use App\TraitUser;
use Illuminate\Support\Facades\Cache;
use Illuminate\Support\Facades\Redis;

/** What needs several processes: artisan commands of the test app, run with the extension. */
class ProcessesTest extends AppTestCase
{
    public function testALockOutlivesTheProcessThatTookItAndIsRestoredElsewhere(): void
    {
        $owner = $this->artisanOk(['dltest:hold', 'survive', '30']);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $owner);
        $this->assertSame($owner, Cache::lock('survive')->getCurrentOwner(), 'not released at process end');
        $this->assertGreaterThan(29000, $this->raw()->pttl($this->lockKey('survive')));
        $this->assertFalse(Cache::lock('survive', 10)->get());
        $restored = Cache::restoreLock('survive', $owner);
        $this->assertTrue($restored->isOwnedByCurrentProcess());
        $this->assertTrue($restored->release());
        $this->assertFalse(Cache::lock('survive')->isLocked());

        $this->assertTrue(Cache::lock('survive', 30, 'here-owner')->get());
        $this->assertSame('NOT', $this->artisanOk(['dltest:hold', 'survive', '30']), 'another process sees it held');
        $this->assertSame('released', $this->artisanOk(['dltest:release', 'survive', 'here-owner']), 'another process releases it by owner');
        $this->assertFalse(Cache::lock('survive')->isLocked());
    }

    public function testCallerOwnerFromAnotherProcess(): void
    {
        $this->assertSame('job-7', $this->artisanOk(['dltest:hold', 'co', '10', '--owner=job-7']));
        $this->assertTrue(Cache::restoreLock('co', 'job-7')->isOwnedByCurrentProcess());
        $this->assertSame('not-released', $this->artisanOk(['dltest:release', 'co', 'job-8']));
        $this->assertSame('released', $this->artisanOk(['dltest:release', 'co', 'job-7']));
    }

    public function testEightProcessesTimesFiftyBlockReadModifyWritesLoseNothing(): void
    {
        $procs = [];
        for ($i = 0; $i < 8; $i++) {
            $procs[] = $this->startArtisan(['dltest:counter', '50']);
        }
        foreach ($procs as $p) {
            [$rc, $out, $err] = $this->finish($p);
            $this->assertSame(0, $rc, "$out\n$err");
        }
        $this->assertSame(400, (int) Redis::get('dltest:counter'), 'lost updates');
        $this->assertFalse(Cache::lock('dltest-counter')->isLocked());
    }

    public function testScheduleRunTwiceAtOnceRunsTheTaskOnce(): void
    {
        $sec = (int) date('s');
        if ($sec > 50) {
            sleep(61 - $sec); // both runs in the same minute: onOneServer's key is per minute
        }
        $a = $this->startArtisan(['schedule:run']);
        $b = $this->startArtisan(['schedule:run']);
        foreach ([$a, $b] as $p) {
            [$rc, $out, $err] = $this->finish($p);
            $this->assertSame(0, $rc, "$out\n$err");
        }
        $this->assertSame(1, (int) Redis::get('dltest:sched-runs'), 'the task ran once');
        $keys = $this->raw()->keys('*framework/schedule*');
        $this->assertNotEmpty($keys, 'onOneServer keeps its per-minute key');
        foreach ($keys as $k) {
            $ttl = $this->raw()->pttl($k);
            $this->assertGreaterThan(0, $ttl, "$k has a TTL");
            $this->assertLessThanOrEqual(3600000, $ttl);
            $this->assertMatchesRegularExpression('/\d{4}$/', $k, 'only the per-minute onOneServer key is left: withoutOverlapping released its mutex');
        }
    }

    public function testAShouldBeUniqueJobDispatchedTwiceIsHandledOnceAndItsLockIsGone(): void
    {
        $env = ['QUEUE_CONNECTION' => 'redis'];
        $this->assertSame('dispatched', $this->artisanOk(['dltest:unique', '2'], $env));
        $name = 'laravel_unique_job:App\\Jobs\\UniqueJob' . (version_compare($this->app->version(), '11', '>=') ? ':' : '') . 'one';
        $this->assertTrue(Cache::lock($name)->isLocked(), 'the unique lock outlives the dispatching process');
        $this->assertEqualsWithDelta(86400000, $this->raw()->pttl($this->lockKey($name)), 60000, 'uniqueFor 0 = forever_ttl');
        $this->assertSame(1, (int) $this->raw()->lLen(config('database.redis.options.prefix') . 'queues:dltest'), 'one job queued');
        $this->artisanOk(['queue:work', 'redis', '--queue=dltest', '--stop-when-empty', '--tries=1'], $env);
        $this->assertSame(1, (int) Redis::get('dltest:unique-handled'));
        $this->assertFalse(Cache::lock($name)->isLocked(), 'the worker released it with restoreLock()');
    }

    public function testTheTraitAcrossProcesses(): void
    {
        $procs = [];
        for ($i = 0; $i < 4; $i++) {
            $procs[] = $this->startArtisan(['dltest:trait-counter', '25']);
        }
        foreach ($procs as $p) {
            [$rc, $out, $err] = $this->finish($p);
            $this->assertSame(0, $rc, "$out\n$err");
        }
        $this->assertSame(100, (int) Redis::get('dltest:trait-counter'));
        $this->assertSame(0, $this->raw()->exists('lock:account:42'));
    }

    public function testTheTraitInteroperatesWithTheOriginalRecipe(): void
    {
        $svc = new TraitUser();
        $r = $this->raw();
        // The original: SET key uniqid() EX 4 NX, release by compare-and-delete.
        $theirs = uniqid();
        $this->assertTrue($r->set('lock:course:9', $theirs, ['NX', 'EX' => 4]));
        $t = microtime(true);
        $this->assertFalse($svc->baseLock('lock:course:9', 4, 0.3), 'ours waits for theirs');
        $this->assertEqualsWithDelta(0.3, microtime(true) - $t, 0.25, 'fractional wait honoured');
        $this->assertFalse($svc->unCourse(9, 'not-theirs'));
        $this->assertSame(1, $r->eval("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end", ['lock:course:9', $theirs], 1));
        $ours = $svc->lockCourse(9);
        $this->assertMatchesRegularExpression('/^[0-9a-f]{32}$/', $ours);
        $this->assertSame($ours, $r->get('lock:course:9'), 'same key and value as the original');
        $this->assertEqualsWithDelta(4000, $r->pttl('lock:course:9'), 100);
        $this->assertFalse($r->set('lock:course:9', uniqid(), ['NX', 'EX' => 4]), 'theirs sees ours');
        $this->assertTrue($svc->unCourse(9, $ours));
        $this->assertFalse($svc->unCourse(9, $ours), 'baseUnLock returns whether it released');
        $again = $svc->lockCourse(9);
        $this->assertTrue($svc->unLockCourse(9, $again), 'unLockCourse(), the name people guess, releases as unCourse() does');
        $this->assertSame(0, $r->exists('lock:course:9'));
        $this->assertNotFalse($t1 = $svc->lockTeacher(3));
        $this->assertNotFalse($a1 = $svc->lockAccount(3));
        $this->assertTrue($svc->unLockTeacher(3, $t1));
        $this->assertTrue($svc->unLockAccount(3, $a1));
        $this->assertSame(['lock:account:', 'lock:course:', 'lock:teacher:'], [$svc->account_lock, $svc->course_lock, $svc->teacher_lock]);
    }
}
