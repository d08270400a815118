"""Render a SceneSpec to a BGR image with exact labels.

Order of work, far to near: the tray surface and rim, lit and cached per scene (only the
dice, occluders and noise change from frame to frame); the dice's cast and contact shadows;
the dice as textured cubes through the pinhole camera, farthest first; lamp glare on the
dice; hands and cup; then camera effects: blur, sensor noise, JPEG.
"""

from __future__ import annotations

import math
from collections import OrderedDict
from dataclasses import dataclass

import cv2
import numpy as np

from .geometry import UP, COCKED_DEG, Camera, DiePose, apply_homography, die_pose, die_spec_rotation_angle
from .shapes import occluder_colour, occluder_mask
from .spec import DieLabel, DieSpec, Lamp, Rendered, SceneSpec
from .textures import DieLook, background_texture, face_texture, texture_size_for

FACE_SIDE = 250  # face_map value: a side face of some die
FACE_OCCLUDER = 251  # face_map value: a hand, arm or cup
FACE_NONE = 255

_BASE_CACHE: OrderedDict[tuple, "_Base"] = OrderedDict()
_BASE_CACHE_SIZE = 6


@dataclass(frozen=True)
class _Base:
    camera: Camera
    lamps: tuple[Lamp, ...]
    image: np.ndarray  # float32 BGR: the lit, empty tray as the camera sees it
    gain: np.ndarray  # float32 BGR: exposure, tint, gradient and vignette per pixel


def scene_lamps(scene: SceneSpec, camera: Camera) -> tuple[Lamp, ...]:
    if scene.lighting.lamps:
        return scene.lighting.lamps
    return (Lamp(scene.width / 2, scene.height / 2, 2.5 * camera.focal, 60.0, 1.0),)


def irradiance(points: np.ndarray, normals: np.ndarray, lamp: Lamp, ambient: float) -> np.ndarray:
    """Light falling on surfaces (N points, N normals), 1.0 on the tray right under the lamp."""
    lamp_pos = np.array([lamp.x, lamp.y, -lamp.height])
    to_lamp = lamp_pos - points
    dist = np.linalg.norm(to_lamp, axis=-1)
    cos = np.clip(np.sum(to_lamp * normals, axis=-1) / dist, 0, 1)
    return ambient + (1 - ambient) * lamp.intensity * cos * (lamp.height / dist) ** 2


def _camera_gain(scene: SceneSpec) -> np.ndarray:
    w, h = scene.width, scene.height
    light = scene.lighting
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    nx, ny = (xx - w / 2) / (w / 2), (yy - h / 2) / (h / 2)
    gain = np.full((h, w), light.exposure, np.float32)
    if light.gradient:
        a = math.radians(light.gradient_deg)
        gain *= 1 + light.gradient * (nx * math.cos(a) + ny * math.sin(a)) / math.sqrt(2)
    if light.vignette:
        r2 = (nx * nx * w * w + ny * ny * h * h) / (w * w + h * h)
        gain *= 1 - light.vignette * r2
    return gain[..., None] * np.array(light.tint_bgr, np.float32)


def _surface(spec, camera: Camera, width: int, height: int, homography: np.ndarray) -> np.ndarray:
    """A background surface warped into the image (float32 BGR)."""
    corners = np.array([[0, 0], [width - 1, 0], [width - 1, height - 1], [0, height - 1]], float)
    plane = apply_homography(np.linalg.inv(homography), corners)
    cap = 3 * max(width, height)
    x0, y0 = np.clip(plane.min(axis=0), [width / 2 - cap, height / 2 - cap], None) - 2
    x1, y1 = np.clip(plane.max(axis=0), None, [width / 2 + cap, height / 2 + cap]) + 2
    tex = background_texture(spec, int(x1 - x0) + 1, int(y1 - y0) + 1)
    shift = np.array([[1, 0, x0], [0, 1, y0], [0, 0, 1]])
    return cv2.warpPerspective(tex, homography @ shift, (width, height), flags=cv2.INTER_LINEAR,
                               borderMode=cv2.BORDER_REFLECT)


def _fill(image: np.ndarray, polygon: np.ndarray, colour: np.ndarray | np.ndarray) -> None:
    """Anti-aliased fill of a polygon (image px) with a colour or an image of colours."""
    h, w = image.shape[:2]
    mask = np.zeros((h, w), np.uint8)
    cv2.fillPoly(mask, [np.round(polygon * 16).astype(np.int32)], 255, cv2.LINE_AA, 4)
    alpha = mask.astype(np.float32)[..., None] / 255
    image *= 1 - alpha
    image += alpha * colour


def _build_base(scene: SceneSpec) -> _Base:
    w, h = scene.width, scene.height
    camera = Camera.from_spec(scene.camera, w, h)
    lamps = scene_lamps(scene, camera)
    light = scene.lighting
    floor_h = camera.plane_to_image(0.0)
    image = _surface(scene.background, camera, w, h, floor_h)

    # light on the tray, per pixel, from the key lamp (with its fall-off)
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    inv = np.linalg.inv(floor_h)
    den = inv[2, 0] * xx + inv[2, 1] * yy + inv[2, 2]
    px = (inv[0, 0] * xx + inv[0, 1] * yy + inv[0, 2]) / den
    py = (inv[1, 0] * xx + inv[1, 1] * yy + inv[1, 2]) / den
    pts = np.stack([px, py, np.zeros_like(px)], axis=-1).reshape(-1, 3)
    lit = irradiance(pts, np.broadcast_to(UP, pts.shape), lamps[0], light.ambient).reshape(h, w)
    image *= lit[..., None]

    if scene.tray is not None:
        image = _draw_tray(scene, camera, image, lamps[0])

    # lamp reflections on a glossy tray: where the mirror image of the camera sees the lamp
    gloss = scene.background.gloss
    if gloss > 0:
        mirror = camera.position * np.array([1, 1, -1])
        for lamp in lamps:
            lamp_pos = np.array([lamp.x, lamp.y, -lamp.height])
            s = mirror[2] / (mirror[2] - lamp_pos[2])
            hit = mirror + s * (lamp_pos - mirror)
            cam_dist = np.linalg.norm(camera.position - hit)
            radius = lamp.radius * cam_dist / (cam_dist + lamp.height) + 40 * (1 - gloss)
            d2 = (px - hit[0]) ** 2 + (py - hit[1]) ** 2
            image += (gloss * lamp.intensity * 140 * np.exp(-d2 / (2 * radius * radius)))[..., None]

    gain = _camera_gain(scene)
    return _Base(camera, lamps, image * gain, gain)


def _draw_tray(scene: SceneSpec, camera: Camera, floor: np.ndarray, lamp: Lamp) -> np.ndarray:
    tray = scene.tray
    w, h = scene.width, scene.height
    light = scene.lighting
    counter = _surface(tray.counter, camera, w, h, camera.plane_to_image(0.0))
    yy, xx = np.mgrid[0:h, 0:w].astype(np.float32)
    image = counter * (0.55 + 0.45 * light.ambient)
    x0, y0, x1, y1 = tray.inner
    inner = np.array([[x0, y0, 0], [x1, y0, 0], [x1, y1, 0], [x0, y1, 0]], float)
    _fill(image, camera.project(inner), floor)

    # the rim: four walls, each an inner face, a top and an outer face; draw far to near
    t, wh = tray.wall_thickness, tray.wall_height
    o = np.array([[x0 - t, y0 - t], [x1 + t, y0 - t], [x1 + t, y1 + t], [x0 - t, y1 + t]], float)
    i = inner[:, :2]
    quads: list[tuple[float, np.ndarray, np.ndarray]] = []
    for k in range(4):
        a, b = k, (k + 1) % 4
        inward = np.append(np.array([[0, 1], [-1, 0], [0, -1], [1, 0]][k], float), 0)
        faces = (
            (np.array([[*i[a], 0], [*i[b], 0], [*i[b], -wh], [*i[a], -wh]]), inward),
            (np.array([[*i[a], -wh], [*i[b], -wh], [*o[b], -wh], [*o[a], -wh]]), UP),
            (np.array([[*o[a], -wh], [*o[b], -wh], [*o[b], 0], [*o[a], 0]]), -inward),
        )
        for quad, normal in faces:
            centre = quad.mean(axis=0)
            if camera.faces_camera(centre, normal):
                quads.append((float(camera.depth(centre[None])[0]), quad, normal))
    wall = np.array(tray.wall_bgr, np.float32)
    for _, quad, normal in sorted(quads, key=lambda q: -q[0]):
        shade = float(irradiance(quad.mean(axis=0)[None], np.asarray(normal)[None], lamp, light.ambient)[0])
        _fill(image, camera.project(quad), wall * shade)
    # the floor is darker along the foot of the walls, where less light reaches
    mask = np.zeros((h, w), np.float32)
    cv2.fillPoly(mask, [np.round(camera.project(inner) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
    occlusion = cv2.GaussianBlur(mask, (0, 0), max(2.0, wh * 0.6))
    image *= np.where(mask[..., None] > 0, 0.55 + 0.45 * np.clip(occlusion * 2 - 0.0, 0, 1)[..., None], 1.0)
    del xx, yy
    return image


def base_layer(scene: SceneSpec) -> _Base:
    """The lit empty tray for a scene; cached, since a frame sequence shares it."""
    key = (scene.width, scene.height, scene.background, scene.lighting, scene.camera, scene.tray)
    base = _BASE_CACHE.get(key)
    if base is None:
        base = _build_base(scene)
        _BASE_CACHE[key] = base
        while len(_BASE_CACHE) > _BASE_CACHE_SIZE:
            _BASE_CACHE.popitem(last=False)
    else:
        _BASE_CACHE.move_to_end(key)
    return base


def _roi(points: np.ndarray, width: int, height: int, margin: float) -> tuple[int, int, int, int] | None:
    x0, y0 = np.floor(points.min(axis=0) - margin).astype(int)
    x1, y1 = np.ceil(points.max(axis=0) + margin).astype(int) + 1
    x0, y0, x1, y1 = max(0, x0), max(0, y0), min(width, x1), min(height, y1)
    if x1 <= x0 or y1 <= y0:
        return None
    return x0, y0, x1, y1


def _draw_shadows(frame: np.ndarray, poses: list[DiePose], dice: tuple[DieSpec, ...], base: _Base,
                  scene: SceneSpec) -> None:
    strength = scene.lighting.shadow_strength
    if strength <= 0 or not poses:
        return
    h, w = frame.shape[:2]
    camera, lamp = base.camera, base.lamps[0]
    to_image = camera.plane_to_image(0.0)
    lamp_pos = np.array([lamp.x, lamp.y, -lamp.height])
    for pose, die in zip(poses, dice):
        corners = pose.corners()
        s = lamp_pos[2] / (lamp_pos[2] - corners[:, 2])
        cast = lamp_pos[:2] + (corners[:, :2] - lamp_pos[:2]) * s[:, None]
        touch = corners[corners[:, 2] > -1.0, :2]
        hull = cv2.convexHull(np.vstack([cast, pose.footprint()]).astype(np.float32)).reshape(-1, 2)
        cast_img = apply_homography(to_image, hull)
        penumbra = 0.8 + lamp.radius * pose.size / max(lamp.height, 1.0)
        roi = _roi(cast_img, w, h, 3 * penumbra + 0.3 * pose.size)
        if roi is None:
            continue
        x0, y0, x1, y1 = roi
        mask = np.zeros((y1 - y0, x1 - x0), np.float32)
        cv2.fillPoly(mask, [np.round((cast_img - (x0, y0)) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
        mask = cv2.GaussianBlur(mask, (0, 0), penumbra)
        amount = strength * (0.55 if die.style == "translucent" else 1.0) * mask
        if len(touch) >= 3:
            # contact shadow: the tray right around the foot of the die gets little light
            foot = apply_homography(to_image, cv2.convexHull(touch.astype(np.float32)).reshape(-1, 2))
            contact = np.zeros_like(mask)
            cv2.fillPoly(contact, [np.round((foot - (x0, y0)) * 16).astype(np.int32)], 1.0, cv2.LINE_AA, 4)
            contact = cv2.GaussianBlur(contact, (0, 0), max(1.0, 0.06 * pose.size))
            amount = np.maximum(amount, 0.6 * contact)
        frame[y0:y1, x0:x1] *= (1 - np.clip(amount, 0, 0.95))[..., None]


def _face_highlight(pose: DiePose, value: int, lamps: tuple[Lamp, ...], camera: Camera, gloss: float,
                    shape: tuple[int, int], origin: tuple[int, int]) -> np.ndarray | None:
    """Specular spots of the lamps on a flat face (float32 levels to add), or None."""
    if gloss <= 0:
        return None
    normal = pose.face_normal(value)
    centre = pose.face_center(value)
    total = None
    for lamp in lamps:
        lamp_pos = np.array([lamp.x, lamp.y, -lamp.height])
        cam_off = float(np.dot(camera.position - centre, normal))
        lamp_off = float(np.dot(lamp_pos - centre, normal))
        if cam_off <= 0 or lamp_off <= 0:
            continue
        mirror = camera.position - 2 * cam_off * normal
        s = (0 - float(np.dot(mirror - centre, normal))) / float(np.dot(lamp_pos - mirror, normal))
        hit = mirror + s * (lamp_pos - mirror)
        cam_dist = float(np.linalg.norm(camera.position - hit))
        radius_w = lamp.radius * cam_dist / (cam_dist + float(np.linalg.norm(lamp_pos - hit))) + 0.06 * pose.size
        offset = hit - centre
        if np.max(np.abs(offset)) > pose.size / 2 + 2.5 * radius_w:
            continue
        spot = camera.project(hit[None])[0]
        scale = camera.focal / max(float(camera.depth(hit[None])[0]), 1e-3)
        radius = max(0.7, radius_w * scale)
        yy, xx = np.mgrid[0:shape[0], 0:shape[1]].astype(np.float32)
        d2 = (xx + origin[0] - spot[0]) ** 2 + (yy + origin[1] - spot[1]) ** 2
        glow = gloss * lamp.intensity * 200 * np.exp(-d2 / (2 * radius * radius))
        total = glow if total is None else total + glow
    return total


def _draw_die(frame: np.ndarray, face_map: np.ndarray, index: int, die: DieSpec, pose: DiePose, base: _Base,
              ambient: float) -> int:
    """Draw one die's visible faces; returns the number of pixels its top face covers."""
    h, w = frame.shape[:2]
    camera = base.camera
    look = DieLook.of(die)
    top = pose.top_value()
    faces = [v for v in range(1, 7)
             if camera.faces_camera(pose.face_center(v), pose.face_normal(v))]
    faces.sort(key=lambda v: v == top)  # top face last: it overlaps the side faces' edges
    top_pixels = 0
    for value in faces:
        normal = pose.face_normal(value)
        quad = camera.project(pose.face_quad(value, grow=0.0 if value == top else 0.5))
        roi = _roi(quad, w, h, 2)
        if roi is None:
            continue
        x0, y0, x1, y1 = roi
        edge = max(np.linalg.norm(quad[k] - quad[(k + 1) % 4]) for k in range(4))
        size = texture_size_for(edge)
        tex = face_texture(look, value, size)
        src = np.array([[-0.5, -0.5], [size - 0.5, -0.5], [size - 0.5, size - 0.5], [-0.5, size - 0.5]], np.float32)
        m = cv2.getPerspectiveTransform(src, (quad - (x0, y0)).astype(np.float32))
        warped = cv2.warpPerspective(tex, m, (x1 - x0, y1 - y0), flags=cv2.INTER_LINEAR,
                                     borderMode=cv2.BORDER_CONSTANT, borderValue=0).astype(np.float32)
        alpha = warped[..., 3:4] * (1 / 255)
        shade = float(sum(irradiance(pose.face_center(value)[None], normal[None], lamp if k == 0 else
                                     Lamp(lamp.x, lamp.y, lamp.height, lamp.radius, lamp.intensity * 0.3),
                                     ambient if k == 0 else 0.0)[0]
                          for k, lamp in enumerate(base.lamps)))
        colour = warped[..., :3] * (shade * base.gain[y0:y1, x0:x1])
        glow = _face_highlight(pose, value, base.lamps, camera, die.gloss, (y1 - y0, x1 - x0), (x0, y0))
        if glow is not None:
            colour += glow[..., None]
        under = frame[y0:y1, x0:x1]
        if die.style == "translucent":
            # light through the body takes its colour; pips (alpha 1) hide the tray
            coverage = np.clip(alpha / max(die.opacity, 1e-3), 0, 1)
            tint = 0.35 + 0.65 * np.array(die.body_bgr, np.float32) / 255
            under *= 1 - coverage + coverage * tint
        frame[y0:y1, x0:x1] = under * (1 - alpha) + colour * alpha
        solid = warped[..., 3] > 0 if die.style == "translucent" else warped[..., 3] >= 128
        region = face_map[y0:y1, x0:x1]
        if value == top:
            region[solid] = index
            top_pixels = int(np.count_nonzero(solid))
        else:
            region[solid] = FACE_SIDE
    return top_pixels


def _draw_occluders(frame: np.ndarray, face_map: np.ndarray, scene: SceneSpec, base: _Base) -> None:
    if not scene.occluders:
        return
    h, w = frame.shape[:2]
    lamp = base.lamps[0]
    for k, occ in enumerate(scene.occluders):
        mask = occluder_mask(occ, w, h)
        if not mask.any():
            continue
        # the shadow falls away from the key lamp, farther for a higher object
        dx, dy = occ.center[0] - lamp.x, occ.center[1] - lamp.y
        reach = occ.height / max(lamp.height - occ.height, 1.0)
        shift = np.float32([[1, 0, dx * reach + 0.15 * occ.height], [0, 1, dy * reach + 0.15 * occ.height]])
        shadow = cv2.warpAffine(mask, shift, (w, h))
        shadow = cv2.GaussianBlur(shadow, (0, 0), 2 + occ.height * 0.12)
        frame *= (1 - scene.lighting.shadow_strength * 0.8 * shadow)[..., None]
        rng = np.random.default_rng([occ.texture_seed, k])
        colour = occluder_colour(occ, mask, rng) * base.gain
        alpha = mask[..., None]
        frame *= 1 - alpha
        frame += alpha * colour
        face_map[mask >= 0.5] = FACE_OCCLUDER


def _camera_effects(frame: np.ndarray, scene: SceneSpec) -> np.ndarray:
    blur = scene.blur
    if blur.defocus_px > 0.3:
        r = blur.defocus_px
        k = int(math.ceil(r)) * 2 + 1
        kernel = np.zeros((k, k), np.float32)
        cv2.circle(kernel, (k // 2 * 16, k // 2 * 16), int(r * 16), 1.0, -1, cv2.LINE_AA, 4)
        frame = cv2.filter2D(frame, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REFLECT)
    if blur.motion_px > 0.5:
        n = int(math.ceil(blur.motion_px)) | 1
        kernel = np.zeros((n, n), np.float32)
        a = math.radians(blur.motion_deg)
        c = (n - 1) / 2
        half = blur.motion_px / 2
        p = (c - half * math.cos(a), c - half * math.sin(a))
        q = (c + half * math.cos(a), c + half * math.sin(a))
        cv2.line(kernel, (int(p[0] * 16), int(p[1] * 16)), (int(q[0] * 16), int(q[1] * 16)), 1.0, 1,
                 cv2.LINE_AA, 4)
        frame = cv2.filter2D(frame, -1, kernel / kernel.sum(), borderType=cv2.BORDER_REFLECT)
    if scene.noise_sigma > 0:
        noise = np.empty_like(frame)
        cv2.setRNGSeed(int(scene.seed) & 0x7FFFFFFF)
        cv2.randn(noise, (0.0, 0.0, 0.0), (1.0, 1.0, 1.0))
        # shot noise grows with the signal: about sigma at mid-grey, half of it in the dark
        frame = frame + noise * (scene.noise_sigma * (0.5 + frame * (0.5 / 128)))
    return np.clip(frame, 0, 255).astype(np.uint8) if frame.dtype != np.uint8 else frame


def _top_face_box(pose: DiePose, camera: Camera, corner_radius: float) -> tuple[np.ndarray, np.ndarray]:
    """The top face's projected outline (rounded corners sampled) and its 4 projected corners."""
    top = pose.top_value()
    corners = pose.face_quad(top)
    centre = corners.mean(axis=0)
    u = (corners[1] - corners[0]) / 2
    v = (corners[3] - corners[0]) / 2
    r = corner_radius * 2
    outline = []
    for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
        corner_centre = centre + su * (1 - r) * u + sv * (1 - r) * v
        for t in np.linspace(0, math.pi / 2, 5):
            outline.append(corner_centre + su * r * math.cos(t) * u + sv * r * math.sin(t) * v)
    return camera.project(np.array(outline)), camera.project(corners)


def _label(index: int, die: DieSpec, pose: DiePose, camera: Camera, top_pixels: int,
           face_map: np.ndarray) -> DieLabel:
    outline, corners = _top_face_box(pose, camera, die.corner_radius)
    x0, y0 = outline.min(axis=0)
    x1, y1 = outline.max(axis=0)
    d1, d2 = corners[2] - corners[0], corners[3] - corners[1]
    area = 0.5 * abs(float(d1[0] * d2[1] - d1[1] * d2[0]))
    centre = camera.project(pose.face_center(pose.top_value())[None])[0]
    tilt = pose.top_tilt_deg()
    if top_pixels:
        bx0, by0 = max(0, int(x0) - 1), max(0, int(y0) - 1)
        seen = int(np.count_nonzero(face_map[by0:int(y1) + 2, bx0:int(x1) + 2] == index))
        visible = min(1.0, seen / top_pixels)
    else:
        visible = 0.0
    return DieLabel(
        index=index,
        value=pose.top_value(),
        center=(float(centre[0]), float(centre[1])),
        box=(float(x0), float(y0), float(x1), float(y1)),
        size=math.sqrt(area),
        angle=die_spec_rotation_angle(pose, camera),
        cocked=tilt > COCKED_DEG or die.lift > 0.5,
        visible=visible,
        tilt_deg=tilt,
    )


def render(scene: SceneSpec) -> Rendered:
    """Render a scene. Deterministic: the same SceneSpec always gives the same image."""
    base = base_layer(scene)
    camera = base.camera
    frame = base.image.copy()
    face_map = np.full((scene.height, scene.width), FACE_NONE, np.uint8)
    poses = [die_pose(d) for d in scene.dice]
    _draw_shadows(frame, poses, scene.dice, base, scene)
    depths = [float(camera.depth(p.center[None])[0]) for p in poses]
    top_pixels = [0] * len(poses)
    for i in sorted(range(len(poses)), key=lambda i: -depths[i]):
        top_pixels[i] = _draw_die(frame, face_map, i, scene.dice[i], poses[i], base, scene.lighting.ambient)
    _draw_occluders(frame, face_map, scene, base)
    image = _camera_effects(frame, scene)
    jpeg = None
    if scene.jpeg_quality is not None:
        ok, encoded = cv2.imencode(".jpg", image, [cv2.IMWRITE_JPEG_QUALITY, int(scene.jpeg_quality)])
        jpeg = encoded.tobytes()
        image = cv2.imdecode(encoded, cv2.IMREAD_COLOR)
    labels = [_label(i, d, p, camera, top_pixels[i], face_map) for i, (d, p) in enumerate(zip(scene.dice, poses))]
    return Rendered(image=image, labels=labels, face_map=face_map, jpeg=jpeg)
