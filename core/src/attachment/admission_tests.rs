//! The chat input's refusals, each rule at its boundary.

use super::*;

fn file(name: &str, size_bytes: u64) -> Candidate {
    Candidate {
        name: name.to_string(),
        size_bytes,
    }
}

fn files(names: &[&str]) -> Vec<Candidate> {
    names.iter().map(|n| file(n, 10)).collect()
}

/// An uploader is registered so videos reach the rules under test.
fn with_uploader() -> AdmissionLimits {
    AdmissionLimits {
        video_uploader_max_size_bytes: Some(u64::MAX),
        ..AdmissionLimits::default()
    }
}

#[test]
fn media_types_follow_the_frontend_extension_lists() {
    assert_eq!(media_type("a.PNG"), Some(MediaType::Image));
    assert_eq!(media_type("a.tiff"), Some(MediaType::Image));
    assert_eq!(media_type("clip.MoV"), Some(MediaType::Video));
    assert_eq!(media_type("clip.flv"), Some(MediaType::Video));
    assert_eq!(media_type("song.flac"), Some(MediaType::Audio));
    assert_eq!(media_type("notes.pdf"), None);
    assert_eq!(media_type("archive.png.zip"), None);
    // No dot: the whole name is the "extension"; video and audio prefix a dot, images do not.
    assert_eq!(media_type("mp4"), Some(MediaType::Video));
    assert_eq!(media_type("mp3"), Some(MediaType::Audio));
    assert_eq!(media_type("png"), None);
}

#[test]
fn the_defaults_are_the_reference_chat_mode() {
    let d = AdmissionLimits::default();
    assert_eq!(d.max_attachments, None);
    assert_eq!(d.max_file_size_bytes, 100 * 1024 * 1024);
    assert_eq!(d.video_uploader_max_size_bytes, None);
    // Forty documents and images pass: chat mode sets no count.
    let many: Vec<Candidate> = (0..40).map(|i| file(&format!("f{i}.png"), 1)).collect();
    assert!(admit(&[], &many, &d).iter().all(Option::is_none));
}

#[test]
fn n_attachments_pass_and_n_plus_one_refuse_the_whole_selection() {
    let limits = AdmissionLimits {
        max_attachments: Some(3),
        ..AdmissionLimits::default()
    };
    assert!(admit(&[], &files(&["a.txt", "b.txt", "c.txt"]), &limits)
        .iter()
        .all(Option::is_none));
    let over = admit(&[], &files(&["a.txt", "b.txt", "c.txt", "d.txt"]), &limits);
    assert_eq!(
        over,
        vec![Some(Refusal::TooManyAttachments { max_attachments: 3 }); 4]
    );
    // The attached files count too.
    let verdicts = admit(
        &files(&["x.txt", "y.txt"]),
        &files(&["a.txt", "b.txt"]),
        &limits,
    );
    assert!(verdicts.iter().all(|v| v.is_some()));
    assert!(admit(&files(&["x.txt", "y.txt"]), &files(&["a.txt"]), &limits)[0].is_none());
    let m = Refusal::TooManyAttachments { max_attachments: 3 }.message();
    assert_eq!(m.title.key, "chat:generate.attachment_limit_reached");
    let d = m.description.expect("a description");
    assert_eq!(d.key, "chat:generate.max_attachments");
    assert_eq!(d.params["count"], "3");
    // Zero refuses any file.
    let zero = AdmissionLimits {
        max_attachments: Some(0),
        ..AdmissionLimits::default()
    };
    assert!(admit(&[], &files(&["a.txt"]), &zero)[0].is_some());
}

#[test]
fn each_type_stops_at_its_limit() {
    let limits = AdmissionLimits {
        max_reference_images: Some(2),
        max_reference_videos: Some(1),
        max_reference_audios: Some(1),
        ..with_uploader()
    };
    let verdicts = admit(
        &[],
        &files(&["1.png", "2.jpg", "3.gif", "a.mp3", "b.wav", "doc.pdf"]),
        &limits,
    );
    assert_eq!(
        verdicts,
        vec![
            None,
            None,
            Some(Refusal::TooManyOfType { max: 2 }),
            None,
            Some(Refusal::TooManyOfType { max: 1 }),
            None,
        ]
    );
    let verdicts = admit(&files(&["v.mp4"]), &files(&["w.webm"]), &limits);
    assert_eq!(verdicts, vec![Some(Refusal::TooManyOfType { max: 1 })]);
    let m = Refusal::TooManyOfType { max: 2 }.message();
    assert_eq!(m.title.key, "chat:generate.max_material_type");
    assert_eq!(m.title.params["count"], "2");
    assert!(m.description.is_none());
}

#[test]
fn images_beside_a_video_follow_the_with_video_limit() {
    let limits = AdmissionLimits {
        max_reference_images: Some(3),
        max_reference_images_with_video: Some(1),
        max_reference_videos: Some(1),
        ..with_uploader()
    };
    // With a video attached, the second image is over imageWithVideo = 1.
    let verdicts = admit(&files(&["v.mp4"]), &files(&["1.png", "2.png"]), &limits);
    assert_eq!(
        verdicts,
        vec![None, Some(Refusal::TooManyOfType { max: 1 })]
    );
    // A video while more images than imageWithVideo are attached (2 > 1) is refused...
    let verdicts = admit(&files(&["1.png", "2.png"]), &files(&["v.mp4"]), &limits);
    assert_eq!(verdicts, vec![Some(Refusal::TooManyOfType { max: 1 })]);
    // ...and with exactly imageWithVideo images (1, not over) it passes.
    assert_eq!(
        admit(&files(&["1.png"]), &files(&["v.mp4"]), &limits),
        vec![None]
    );
    // Without imageWithVideo, images beside a video keep the image limit.
    let no_pair = AdmissionLimits {
        max_reference_images_with_video: None,
        ..limits
    };
    let verdicts = admit(
        &files(&["v.mp4"]),
        &files(&["1.png", "2.png", "3.png", "4.png"]),
        &no_pair,
    );
    assert_eq!(verdicts[2], None);
    assert_eq!(verdicts[3], Some(Refusal::TooManyOfType { max: 3 }));
}

#[test]
fn the_model_size_per_type_refuses_one_byte_over() {
    let mb = 1024 * 1024;
    let limits = AdmissionLimits {
        image_max_size_mb: SizeMb::new(10.0),
        video_max_size_mb: SizeMb::new(50.0),
        audio_max_size_mb: SizeMb::new(0.5),
        ..with_uploader()
    };
    let picked = [
        file("at.png", 10 * mb),
        file("over.png", 10 * mb + 1),
        file("at.mp4", 50 * mb),
        file("over.mp4", 50 * mb + 1),
        file("at.mp3", mb / 2),
        file("over.mp3", mb / 2 + 1),
        file("big.pdf", 60 * mb),
    ];
    let verdicts = admit(&[], &picked, &limits);
    let refused: Vec<bool> = verdicts.iter().map(Option::is_some).collect();
    assert_eq!(refused, [false, true, false, true, false, true, false]);
    let m = verdicts[1].expect("refused").message();
    assert_eq!(m.title.key, "chat:generate.material_errors.max_size");
    assert_eq!(m.title.params["current"], "10");
    assert_eq!(m.title.params["max"], "10");
    let m = verdicts[5].expect("refused").message();
    assert_eq!(m.title.params["current"], "0.5");
    assert_eq!(m.title.params["max"], "0.5");
    // toFixed(1) rounds exact halves up: 0.25 MB prints 0.3.
    assert_eq!(size_mb_one_decimal(mb / 4), "0.3");
    assert_eq!(size_mb_one_decimal(12 * mb + mb / 3), "12.3");
    // A zero limit is none, as the reference's `maxSizeMb &&` makes it.
    assert!(SizeMb::new(0.0).is_none());
}

#[test]
fn a_video_needs_an_uploader_and_is_held_to_its_size() {
    let none = AdmissionLimits::default();
    assert_eq!(
        admit(&[], &[file("clip.mp4", 1)], &none),
        vec![Some(Refusal::VideoUploadUnavailable)]
    );
    let m = Refusal::VideoUploadUnavailable.message();
    assert_eq!(
        m.title.key,
        "common:attachment.errors.video_upload_unavailable"
    );
    let uploader = AdmissionLimits {
        video_uploader_max_size_bytes: Some(500),
        ..AdmissionLimits::default()
    };
    assert_eq!(
        admit(
            &[],
            &[file("clip.mp4", 500), file("clip2.mp4", 501)],
            &uploader
        ),
        vec![None, Some(Refusal::VideoOverUploaderLimit)]
    );
    // The uploader's limit replaces the generic cap for videos only.
    let big = 200 * 1024 * 1024;
    let roomy = AdmissionLimits {
        video_uploader_max_size_bytes: Some(big),
        ..AdmissionLimits::default()
    };
    assert_eq!(
        admit(&[], &[file("long.mkv", big), file("long.txt", big)], &roomy),
        vec![
            None,
            Some(Refusal::FileTooLarge {
                max_file_size_bytes: 100 * 1024 * 1024
            })
        ]
    );
}

#[test]
fn the_generic_cap_passes_at_the_limit_and_refuses_one_byte_over() {
    let d = AdmissionLimits::default();
    let cap = d.max_file_size_bytes;
    let verdicts = admit(&[], &[file("a.pdf", cap), file("b.png", cap + 1)], &d);
    assert_eq!(verdicts[0], None);
    let refusal = verdicts[1].expect("over the cap");
    assert_eq!(refusal.code(), "file_too_large");
    let m = refusal.message();
    assert_eq!(m.title.key, "common:attachment.errors.file_too_large");
    let hint = m.description.expect("a hint");
    assert_eq!(hint.key, "common:attachment.errors.file_too_large_hint");
    assert_eq!(hint.params["size"], "100");
}

#[test]
fn refused_files_do_not_count_towards_their_type() {
    let limits = AdmissionLimits {
        max_reference_images: Some(1),
        ..AdmissionLimits::default()
    };
    let picked = [file("huge.png", u64::MAX), file("small.png", 1)];
    let verdicts = admit(&[], &picked, &limits);
    assert!(verdicts[0].is_some());
    assert_eq!(verdicts[1], None);
}

#[test]
fn limits_and_messages_travel_as_json() {
    let limits: AdmissionLimits =
        serde_json::from_str(r#"{"max_attachments":2,"image_max_size_mb":1.5}"#).expect("json");
    assert_eq!(limits.max_attachments, Some(2));
    assert_eq!(limits.image_max_size_mb.map(SizeMb::get), Some(1.5));
    assert_eq!(limits.max_file_size_bytes, DEFAULT_MAX_FILE_SIZE_BYTES);
    assert!(serde_json::from_str::<AdmissionLimits>(r#"{"image_max_size_mb":0}"#).is_err());
    let text = serde_json::to_string(&Refusal::TooManyOfType { max: 4 }.message()).expect("json");
    assert_eq!(
        text,
        r#"{"title":{"key":"chat:generate.max_material_type","params":{"count":"4"}}}"#
    );
}

#[test]
fn english_messages_are_the_reference_en_texts() {
    assert_eq!(
        Refusal::TooManyAttachments { max_attachments: 3 }
            .message()
            .english(),
        "Material limit reached: Upload up to 3 reference materials"
    );
    assert_eq!(
        Refusal::VideoUploadUnavailable.message().english(),
        "Video upload is not configured; video files are not supported"
    );
    assert_eq!(
        Refusal::FileTooLarge {
            max_file_size_bytes: DEFAULT_MAX_FILE_SIZE_BYTES
        }
        .message()
        .english(),
        "File is too large: File size cannot exceed 100 MB. Please compress and try again"
    );
    let over = Refusal::OverModelSize {
        size_bytes: 3 * 1024 * 1024 / 2,
        max: SizeMb(1.0),
    };
    assert_eq!(
        over.message().english(),
        "File size is 1.5 MB; this model allows up to 1 MB"
    );
}

#[test]
fn attributes_read_as_the_reference_normalises_its_limits() {
    let none = AdmissionLimits::from_attributes(|_| None, DEFAULT_MAX_FILE_SIZE_BYTES);
    assert_eq!(none, AdmissionLimits::default());
    let given = [
        ("max-attachments", " 2 "),
        ("max-reference-images", "1"),
        ("max-reference-images-with-video", "0"),
        ("max-reference-videos", "3"),
        ("max-reference-audios", "4"),
        ("image-max-size-mb", "1.5"),
        ("video-max-size-mb", "0"),
        ("audio-max-size-mb", "x"),
        ("video-uploader-max-size-bytes", "5000"),
    ];
    assert!(given.iter().all(|(n, _)| ADMISSION_ATTRIBUTES.contains(n)));
    let attribute = |name: &str| {
        given
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.to_string())
    };
    let a = AdmissionLimits::from_attributes(attribute, 1_048_576);
    assert_eq!(a.max_attachments, Some(2));
    assert_eq!(a.max_reference_images, Some(1));
    assert_eq!(a.max_reference_images_with_video, Some(0));
    assert_eq!(a.max_reference_videos, Some(3));
    assert_eq!(a.max_reference_audios, Some(4));
    assert_eq!(a.image_max_size_mb.map(SizeMb::get), Some(1.5));
    assert_eq!(
        a.video_max_size_mb, None,
        "zero is no limit, as in the reference"
    );
    assert_eq!(a.audio_max_size_mb, None);
    assert_eq!(a.video_uploader_max_size_bytes, Some(5000));
    assert_eq!(a.max_file_size_bytes, 1_048_576);
    let negative = AdmissionLimits::from_attributes(
        |n| (n == "max-attachments").then(|| "-1".to_string()),
        DEFAULT_MAX_FILE_SIZE_BYTES,
    );
    assert_eq!(negative.max_attachments, None);
}
