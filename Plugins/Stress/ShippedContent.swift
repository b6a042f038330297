import Foundation

/// The content pack the module ships (version 1). The thesis gives only the programme names, the
/// three known week-4 items, the team and research headings; every other text here was written
/// for this module and is marked as the team's to replace (docs/stress.md, "Content"). Week 4's
/// items paraphrase the kind of statements the thesis shows (a 1–7 agreement scale); the entry test
/// paraphrases common perceived-stress items (0–4), not a licensed instrument.
enum ShippedContent {
    static let pack: ContentPack = {
        do { return try JSONDecoder().decode(ContentPack.self, from: Data(json.utf8)) } catch {
            fatalError("the shipped content pack does not decode: \(error)")  // caught by StressContentTests
        }
    }()

    static let json = #"""
    {
      "version": 1,
      "programs": [
        {"order": 0, "title": "goal", "name": {"cs": "Cíle", "en": "Goals"}, "repeatable": false, "hasSummary": true,
         "intro": {"cs": "Tento týden si zformuluješ jeden krátkodobý cíl, který je v tvých silách.", "en": "This week you formulate one short-term goal that is within your reach."},
         "nextSteps": {"cs": "Hotovo. Za šest dní se otevře Relaxace. Mezitím si zapisuj do deníku.", "en": "Done. Relaxation opens in six days. Meanwhile, keep writing your diary."}},
        {"order": 1, "title": "relaxation", "name": {"cs": "Relaxace", "en": "Relaxation"}, "repeatable": true, "hasSummary": false,
         "intro": {"cs": "Relaxace uvolňuje napětí v těle i v hlavě. Najdi si klidné místo.", "en": "Relaxation eases tension in body and mind. Find a quiet place."},
         "nextSteps": {"cs": "Výborně. Cvičení můžeš opakovat kdykoli. Řízení času se otevře za šest dní.", "en": "Well done. You can repeat the exercise any time. Time management opens in six days."}},
        {"order": 2, "title": "time-management", "name": {"cs": "Řízení času", "en": "Time management"}, "repeatable": false, "hasSummary": true,
         "intro": {"cs": "Podíváme se, kam ti utíká čas a co z toho můžeš změnit.", "en": "We look at where your time goes and what you can change."},
         "nextSteps": {"cs": "Hotovo. Poslední týden, Hledání smyslu a pozitiv, se otevře za šest dní.", "en": "Done. The last week, Searching for meaning and positives, opens in six days."}},
        {"order": 3, "title": "searching-for-meaning", "name": {"cs": "Hledání smyslu a pozitiv", "en": "Searching for meaning and positives"}, "repeatable": false, "hasSummary": true,
         "intro": {"cs": "Vzpomeň si na jednu stresovou událost a hledej, co dobrého ti přinesla.", "en": "Recall one stressful event and look for what good it brought you."},
         "nextSteps": {"cs": "Program je za tebou. Ohodnoť poslední týden a vyplň dva závěrečné dotazníky.", "en": "You have finished the programme. Rate the last week and fill in the two exit questionnaires."}}
      ],
      "levels": [
        {"level": 1, "label": {"cs": "Ve stresu a vyčerpaný/á", "en": "Stressed and worn out"}},
        {"level": 2, "label": {"cs": "Unavený/á", "en": "Tired"}},
        {"level": 3, "label": {"cs": "Celkem spokojený/á", "en": "Fairly content"}},
        {"level": 4, "label": {"cs": "Veselý/á a bez starostí", "en": "Cheerful and carefree"}}
      ],
      "diaryQuestions": [
        {"id": 101, "level": 1, "text": {"cs": "Co tě teď nejvíc tíží?", "en": "What weighs on you most right now?"}},
        {"id": 102, "level": 1, "text": {"cs": "Co by ti teď nejvíc pomohlo?", "en": "What would help you most right now?"}},
        {"id": 103, "level": 1, "text": {"cs": "Kdy ses naposledy cítil/a klidně?", "en": "When did you last feel calm?"}},
        {"id": 201, "level": 2, "text": {"cs": "Co tě dnes nejvíc vyčerpalo?", "en": "What drained you most today?"}},
        {"id": 202, "level": 2, "text": {"cs": "Jak si dnes můžeš odpočinout?", "en": "How can you rest today?"}},
        {"id": 203, "level": 2, "text": {"cs": "Co můžeš dnes odložit?", "en": "What can you put off today?"}},
        {"id": 301, "level": 3, "text": {"cs": "Co ti dnes pomohlo?", "en": "What helped you today?"}},
        {"id": 302, "level": 3, "text": {"cs": "Za co jsi dnes vděčný/á?", "en": "What are you grateful for today?"}},
        {"id": 303, "level": 3, "text": {"cs": "Co se ti dnes povedlo?", "en": "What went well today?"}},
        {"id": 401, "level": 4, "text": {"cs": "Z čeho máš dnes radost?", "en": "What makes you glad today?"}},
        {"id": 402, "level": 4, "text": {"cs": "S kým se chceš o dobrou náladu podělit?", "en": "Who do you want to share your good mood with?"}},
        {"id": 403, "level": 4, "text": {"cs": "Co z dneška si chceš zapamatovat?", "en": "What about today do you want to remember?"}}
      ],
      "goalQuestions": [
        {"id": 1, "multiline": true, "text": {"cs": "Co tě v poslední době nejvíc stresuje?", "en": "What has stressed you most lately?"}},
        {"id": 2, "multiline": false, "isGoal": true, "text": {"cs": "Jaký jeden cíl si na příští týden dáš? (Krátce a konkrétně.)", "en": "Which one goal do you set for next week? (Short and concrete.)"}},
        {"id": 3, "multiline": true, "text": {"cs": "Podle čeho poznáš, že se ti cíl podařil?", "en": "How will you know you reached it?"}},
        {"id": 4, "multiline": true, "text": {"cs": "Co ti může v cestě stát a jak si poradíš?", "en": "What may stand in the way, and how will you deal with it?"}}
      ],
      "timeQuestions": [
        {"id": 1, "multiline": true, "text": {"cs": "Na co včera padlo nejvíc času?", "en": "What took most of your time yesterday?"}},
        {"id": 2, "multiline": true, "text": {"cs": "Které tři úkoly jsou tento týden opravdu důležité?", "en": "Which three tasks really matter this week?"}},
        {"id": 3, "multiline": true, "text": {"cs": "Co můžeš delegovat, odložit nebo vypustit?", "en": "What can you delegate, postpone or drop?"}},
        {"id": 4, "multiline": false, "text": {"cs": "Kdy si v týdnu naplánuješ čas jen pro sebe?", "en": "When in the week do you plan time just for yourself?"}}
      ],
      "relaxation": {
        "intro": [
          {"title": {"cs": "Proč relaxovat", "en": "Why relax"}, "text": {"cs": "Při stresu se tělo napíná. Pravidelná relaxace učí tělo povolit.", "en": "Stress tenses the body. Regular relaxation teaches it to let go."}},
          {"title": {"cs": "Jak na to", "en": "How to"}, "text": {"cs": "Spusť stopky, cvič, a až skončíš, stopky zastav. Změříme, jak dlouho jsi relaxoval/a.", "en": "Start the timer, practise, and stop it when you finish. We measure how long you relaxed."}}
        ],
        "techniques": [
          {"title": {"cs": "Dýchání do břicha", "en": "Belly breathing"}, "text": {"cs": "Nádech nosem na čtyři doby, výdech ústy na šest. Desetkrát.", "en": "Breathe in through the nose for four counts, out through the mouth for six. Ten times."}},
          {"title": {"cs": "Progresivní svalová relaxace", "en": "Progressive muscle relaxation"}, "text": {"cs": "Postupně napni a uvolni svaly od chodidel po obličej.", "en": "Tense and release your muscles one group at a time, from the feet to the face."}},
          {"title": {"cs": "Bezpečné místo", "en": "A safe place"}, "text": {"cs": "Představ si místo, kde se cítíš v bezpečí, se všemi jeho zvuky a vůněmi.", "en": "Imagine a place where you feel safe, with all its sounds and smells."}}
        ]
      },
      "meaningQuestions": [
        {"id": 1, "type": 1, "text": {"cs": "Chápu smysl svého života.", "en": "I understand my life's meaning."}},
        {"id": 2, "type": 2, "text": {"cs": "Hledám něco, co učiní můj život smysluplným.", "en": "I am looking for something that makes my life feel meaningful."}},
        {"id": 3, "type": 1, "text": {"cs": "Můj život má jasný směr.", "en": "My life has a clear direction."}},
        {"id": 4, "type": 1, "text": {"cs": "Vím, co dává mému životu smysl.", "en": "I know what makes my life meaningful."}},
        {"id": 5, "type": 1, "text": {"cs": "Našel/našla jsem uspokojivý cíl svého života.", "en": "I have found a satisfying purpose in life."}},
        {"id": 6, "type": 1, "text": {"cs": "Můj život má smysl.", "en": "My life has meaning."}},
        {"id": 7, "type": 2, "text": {"cs": "Stále hledám svůj životní účel.", "en": "I am always looking for my life's purpose."}},
        {"id": 8, "type": 2, "text": {"cs": "Hledám poslání svého života.", "en": "I am seeking a mission for my life."}},
        {"id": 9, "type": 2, "text": {"cs": "Hledám, co by můj život naplnilo.", "en": "I am searching for what would fulfil my life."}},
        {"id": 10, "type": 2, "text": {"cs": "Pátrám po tom, proč jsem tady.", "en": "I wonder why I am here."}},
        {"id": 11, "type": 3, "text": {"cs": "Těžké chvíle mě něco naučily.", "en": "Hard times have taught me something."}},
        {"id": 12, "type": 3, "text": {"cs": "I ve stresu dokážu najít něco dobrého.", "en": "Even under stress I can find something good."}},
        {"id": 13, "type": 3, "text": {"cs": "Mám lidi, na které se mohu obrátit.", "en": "I have people I can turn to."}},
        {"id": 14, "type": 3, "text": {"cs": "Věřím, že situaci zvládnu.", "en": "I believe I can handle the situation."}},
        {"id": 15, "type": 3, "text": {"cs": "Každý člověk by se měl snažit hledat smysl svého života.", "en": "Everyone should try to find the meaning of their life."}}
      ],
      "entryTest": {
        "title": {"cs": "Vnímaný stres za poslední měsíc (0 = nikdy, 4 = velmi často)", "en": "Perceived stress over the last month (0 = never, 4 = very often)"},
        "items": [
          {"id": 1, "text": {"cs": "Jak často tě rozhodilo něco nečekaného?", "en": "How often were you upset by something unexpected?"}},
          {"id": 2, "text": {"cs": "Jak často jsi měl/a pocit, že nemáš pod kontrolou důležité věci?", "en": "How often did you feel unable to control the important things?"}},
          {"id": 3, "text": {"cs": "Jak často ses cítil/a nervózní a ve stresu?", "en": "How often did you feel nervous and stressed?"}},
          {"id": 4, "text": {"cs": "Jak často sis věřil/a, že zvládneš své osobní problémy?", "en": "How often did you feel confident about handling your personal problems?"}},
          {"id": 5, "text": {"cs": "Jak často se ti hromadily potíže tak, že jsi je nemohl/a překonat?", "en": "How often did difficulties pile up so high that you could not overcome them?"}}
        ]
      },
      "screen": {
        "title": {"cs": "Úvodní dotazník", "en": "Screening questionnaire"},
        "questions": [
          {"id": 1, "text": {"cs": "Studuješ?", "en": "Are you studying?"}, "options": [
            {"id": 1, "text": {"cs": "Bakalářský program", "en": "Bachelor's"}}, {"id": 2, "text": {"cs": "Magisterský program", "en": "Master's"}},
            {"id": 3, "text": {"cs": "Doktorský program", "en": "Doctoral"}}, {"id": 4, "text": {"cs": "Nestuduji", "en": "Not studying"}}]},
          {"id": 2, "text": {"cs": "Vyhledal/a jsi někdy kvůli stresu odbornou pomoc?", "en": "Have you ever sought professional help because of stress?"}, "options": [
            {"id": 1, "text": {"cs": "Ano", "en": "Yes"}}, {"id": 2, "text": {"cs": "Ne", "en": "No"}}, {"id": 3, "text": {"cs": "Nechci odpovídat", "en": "Prefer not to say"}}]},
          {"id": 3, "text": {"cs": "Kolik hodin denně obvykle spíš?", "en": "How many hours a day do you usually sleep?"}, "options": [
            {"id": 1, "text": {"cs": "Méně než 6", "en": "Under 6"}}, {"id": 2, "text": {"cs": "6–8", "en": "6–8"}}, {"id": 3, "text": {"cs": "Více než 8", "en": "Over 8"}}]}
        ]
      },
      "scales": {"entry": [0, 4], "meaning": [1, 7], "evaluation": [1, 5], "stress": [0, 10], "appRating": [1, 5]},
      "libraryIntro": {"cs": "Knihovna: krátké texty o stresu a o tom, jak ho zvládat.", "en": "The library: short texts on stress and how to cope with it."},
      "library": [
        {"id": "L1", "parent": null, "position": 1, "title": {"cs": "Co je stres", "en": "What stress is"}, "text": {"cs": "Stres vzniká, když situaci vnímáme jako ohrožující a nevěříme, že ji zvládneme.", "en": "Stress arises when we see a situation as a threat and doubt we can handle it."}},
        {"id": "L1.1", "parent": "L1", "position": 1, "title": {"cs": "Hodnocení (appraisal)", "en": "Appraisal"}, "text": {"cs": "Nejdřív posoudíme, zda nás situace ohrožuje, pak zda na ni máme síly.", "en": "First we judge whether a situation threatens us, then whether we have the resources for it."}},
        {"id": "L1.2", "parent": "L1", "position": 2, "title": {"cs": "Zvládání (coping)", "en": "Coping"}, "text": {"cs": "Zvládání je vše, co děláme, abychom stres zmírnili.", "en": "Coping is everything we do to ease stress."}},
        {"id": "L1.2.1", "parent": "L1.2", "position": 1, "title": {"cs": "Zaměřené na problém", "en": "Problem-focused"}, "text": {"cs": "Měníme situaci: plánujeme, řešíme, hledáme informace.", "en": "We change the situation: plan, solve, find information."}},
        {"id": "L1.2.2", "parent": "L1.2", "position": 2, "title": {"cs": "Zaměřené na emoce", "en": "Emotion-focused"}, "text": {"cs": "Měníme, jak se cítíme: relaxace, pohyb, sdílení.", "en": "We change how we feel: relaxation, exercise, talking."}},
        {"id": "L1.2.3", "parent": "L1.2", "position": 3, "title": {"cs": "Zaměřené na smysl", "en": "Meaning-focused"}, "text": {"cs": "Hledáme v situaci smysl a to, co je pro nás důležité.", "en": "We look for meaning in the situation and for what matters to us."}},
        {"id": "L2", "parent": null, "position": 2, "title": {"cs": "Stres při studiu", "en": "Stress while studying"}, "text": {"cs": "Zkoušky, termíny a nejistota: jak s nimi pracovat.", "en": "Exams, deadlines and uncertainty: how to work with them."}},
        {"id": "L2.1", "parent": "L2", "position": 1, "title": {"cs": "Před zkouškou", "en": "Before an exam"}, "text": {"cs": "Večer před zkouškou pomáhá krátká relaxace a dostatek spánku.", "en": "The evening before an exam, a short relaxation and enough sleep help."}},
        {"id": "L3", "parent": null, "position": 3, "title": {"cs": "Kde hledat pomoc", "en": "Where to find help"}, "text": {"cs": "Když je toho moc, obrať se na odborníka. Kontakty najdeš v části O aplikaci → Náš tým.", "en": "When it gets too much, turn to a professional. Contacts are under About → Our team."}}
      ],
      "team": [
        {"name": {"cs": "Manažerka stresu", "en": "Stress manager"}, "members": [
          {"heading": "Jana Nováková", "description": {"cs": "Doplňující informace", "en": "Further information"}, "email": "pomoc@nestresuju.cz", "phone": "+420 777 123 123"}]},
        {"name": {"cs": "IT ve stresu", "en": "IT under stress"}, "members": [
          {"heading": "Jan Novák", "email": "jenda@nestresuju.cz"}]}
      ],
      "research": {
        "text": {"cs": "<p>Aplikace je součástí výzkumu zvládání stresu u vysokoškolských studentů.</p>", "en": "<p>The app is part of research into how university students cope with stress.</p>"},
        "subsections": [
          {"name": {"cs": "Informovaný souhlas", "en": "Informed consent"}, "text": {"cs": "<p>Souhlasíš se zpracováním údajů, které v aplikaci zadáš, pro účely výzkumu. Souhlas můžeš kdykoli odvolat; tvá data se tím nevratně smažou a účet zanikne.</p>", "en": "<p>You agree that the data you enter is processed for the research. You can withdraw at any time; your data is then deleted irreversibly and the account is closed.</p>"}},
          {"name": {"cs": "Další informace", "en": "Further information"}, "text": {"cs": "<p>Výsledky výzkumu zveřejníme anonymně.</p>", "en": "<p>The results are published anonymously.</p>"}}
        ]
      },
      "tech": {"website": "https://nestresuju.cz", "moduleVersion": "1.0.0"}
    }
    """#
}
